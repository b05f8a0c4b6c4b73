/**
 * How the service runs the attribution engine: in this thread
 * (`InlineEngineRunner`) or in a pool of worker threads
 * (engine-worker-pool.ts, docs/decisions/140-attr-engine-worker-pool.md).
 *
 * Both hand back the same thing: the few fields the audit record and the
 * metrics need, as soon as the engine has decided, and then the response
 * serialised to the UTF-8 JSON bytes that go on the wire. So the thread that
 * owns the HTTP server and the audit chain never walks, stringifies or
 * re-encodes a ~100 KB footer — that work runs where the engine runs, while
 * the audit entry is already being committed.
 */
import { createHash } from 'node:crypto';
import type { AttributeInput, AttributionEngine, AttributionResponse } from '../engine/index.ts';
import { AttrError, ATTR_ERROR_TABLE, type AttrErrorCode } from '../errors.ts';

const encoder = new TextEncoder();

/** What the audit record and the metrics read from a response. */
export interface AttributionSummary {
  status: AttributionResponse['status'];
  eventId: string;
  eventHash: string;
  eventCreatedAt: string;
  footerHash: string;
  sourceCount: number;
  auditErrorCount: number;
  answerSha256: string;
}

/** A decided attribution: its summary now, the wire bytes of the response when serialised. */
export interface AttributionResult {
  summary: AttributionSummary;
  /** `JSON.stringify(response)` as UTF-8 (exactly the bytes the service used to send). */
  body: Promise<Buffer>;
}

export interface AttributionRunner {
  /**
   * Attributes one answer; resolves once the engine has decided (the body may
   * still be on its way). Rejects with the engine's `AttrError` (bad revenue,
   * …) or `internal`.
   */
  attribute(input: AttributeInput): Promise<AttributionResult>;
  /** Why the runner cannot attribute right now (readiness check `engine_load`); undefined when fine. */
  problem(): string | undefined;
  /** Worker threads attributing (0: the engine runs in the service's own thread). */
  readonly workers: number;
  close(): Promise<void>;
}

export function summarizeAttribution(response: AttributionResponse): AttributionSummary {
  return {
    status: response.status,
    eventId: response.event.event_id,
    eventHash: response.event.event_hash,
    eventCreatedAt: response.event.created_at,
    footerHash: response.source_footer.footer_hash,
    sourceCount: response.source_footer.source_rows.length,
    auditErrorCount: response.audit_errors.length,
    answerSha256: response.event.answer_sha256,
  };
}

/**
 * The one place a response becomes wire bytes (the inline runner and every
 * worker call it): the UTF-8 of `JSON.stringify(response)` in an ArrayBuffer
 * of its own and of its exact size, never a slice of Buffer's shared 8 KiB
 * pool, so a worker can transfer it without detaching memory anything else
 * uses.
 */
export function encodeAttribution(response: AttributionResponse): Buffer {
  const bytes = encoder.encode(JSON.stringify(response));
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}


/** SHA-256 of a response's wire bytes: how a worker's probe answer is compared with the in-process engine's. */
export function bodyDigest(body: Uint8Array): string {
  return createHash('sha256').update(body).digest('hex');
}

/** An error as it crosses a thread boundary: code, client message and details; the stack stays server-side. */
export interface TransportedError {
  code: AttrErrorCode;
  message: string;
  retryable: boolean;
  details: Record<string, unknown> | undefined;
  /** For the server log only (name: message and stack of an unexpected error). */
  cause: string | undefined;
}

export function toTransportedError(err: unknown): TransportedError {
  const e = AttrError.from(err);
  const cause = e.code === 'internal' ? ((err as Error | undefined)?.stack ?? String(err)) : undefined;
  return { code: e.code, message: e.message, retryable: e.retryable, details: e.details, cause };
}

export function fromTransportedError(t: TransportedError): AttrError {
  // A code this build does not know cannot come from our own worker; treat it as internal rather than trust it.
  if (!Object.hasOwn(ATTR_ERROR_TABLE, t.code)) return new AttrError('internal', 'internal error');
  return new AttrError(t.code, t.message, {
    retryable: t.retryable,
    ...(t.details === undefined ? {} : { details: t.details }),
    ...(t.cause === undefined ? {} : { cause: new Error(t.cause) }),
  });
}

/** The engine in the calling thread: `engine.workers: 0`, and the reference the pool is checked against. */
export class InlineEngineRunner implements AttributionRunner {
  readonly workers = 0;
  readonly #engine: AttributionEngine;

  constructor(engine: AttributionEngine) {
    this.#engine = engine;
  }

  async attribute(input: AttributeInput): Promise<AttributionResult> {
    const response = this.#engine.attribute(input);
    return { summary: summarizeAttribution(response), body: Promise.resolve(encodeAttribution(response)) };
  }

  problem(): string | undefined {
    return undefined;
  }

  async close(): Promise<void> {}
}
