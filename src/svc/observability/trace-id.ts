/**
 * Trace ids for every surface (HTTP, gRPC): a W3C trace context id taken from
 * an incoming `traceparent`, else a fresh random one. Returned to clients as
 * `X-SVC-Trace-ID` and recorded in plans, manifests and ledger events.
 */
import { randomBytes } from 'node:crypto';

/** W3C trace id from an incoming `traceparent`, else a fresh random one. */
export function traceIdFrom(traceparent: string | string[] | undefined, random: () => string = newTraceId): string {
  if (typeof traceparent === 'string') {
    const m = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent.trim());
    if (m && m[1] !== '0'.repeat(32)) return m[1]!;
  }
  return random();
}

/** 32 lowercase hex characters (128 random bits). */
export function newTraceId(): string {
  return randomBytes(16).toString('hex');
}
