/**
 * Trace ids for every surface (HTTP, gRPC): a W3C trace context id taken from
 * an incoming `traceparent`, else a fresh random one. Returned to clients as
 * `X-SVC-Trace-ID` and recorded in plans, manifests, ledger events and logs.
 */
import { randomFillSync } from 'node:crypto';

/** The parts of a valid W3C `traceparent` (version 00 layout) that svc uses. */
export interface Traceparent {
  traceId: string;
  spanId: string;
  sampled: boolean;
}

/** Parses a `traceparent` header; undefined when absent or invalid (all-zero ids are invalid). */
export function parseTraceparent(header: string | string[] | undefined): Traceparent | undefined {
  if (typeof header !== 'string') return undefined;
  const m = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(header.trim());
  if (!m || m[1] === 'ff' || m[2] === '0'.repeat(32) || m[3] === '0'.repeat(16)) return undefined;
  return { traceId: m[2]!, spanId: m[3]!, sampled: (Number.parseInt(m[4]!, 16) & 1) === 1 };
}

/** W3C trace id from an incoming `traceparent`, else a fresh random one. */
export function traceIdFrom(traceparent: string | string[] | undefined, random: () => string = newTraceId): string {
  return parseTraceparent(traceparent)?.traceId ?? random();
}

/**
 * Random bytes for trace ids, drawn 4 KiB at a time: `randomBytes(16)` per
 * request was one of the larger fixed costs of an HTTP request (the same
 * pooling as src/core/ids.ts). Trace ids are identifiers, not secrets.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** 32 lowercase hex characters (128 random bits). */
export function newTraceId(): string {
  if (poolAt + 16 > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const id = pool.toString('hex', poolAt, poolAt + 16);
  poolAt += 16;
  return id;
}
