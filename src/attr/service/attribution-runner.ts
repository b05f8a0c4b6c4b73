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
  /** Milliseconds the engine call itself took, timed in the thread that ran it (the `Server-Timing` breakdown). */
  engineMs: number;
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

/** Stand-ins for the two rendered texts while the rest of the response is stringified. */
const FOOTER_TEXT_MARK = JSON.stringify('\u0000attr:source_footer.rendered_text\u0000');
const DISPLAY_TEXT_MARK = JSON.stringify('\u0000attr:display.rendered_text\u0000');

/**
 * The one place a response becomes wire bytes (the inline runner and every
 * worker call it): exactly the UTF-8 of `JSON.stringify(response)`, in an
 * ArrayBuffer of its own and of its exact size — never a slice of Buffer's
 * shared 8 KiB pool — so a worker can transfer it without detaching memory
 * anything else uses.
 *
 * Why in pieces: the rendered footer draws its rule with U+2500, so a single
 * `JSON.stringify` of the response is a two-byte string (~216 KB for a
 * 300-word answer): it lands in V8's large-object space, which only a full
 * GC of the worker's ~50 MB heap reclaims, and it is transcoded from UTF-16.
 * Stringifying the response with the two rendered texts marked out keeps the
 * big part one-byte and young; the two texts are stringified on their own
 * (`JSON.stringify` of a string is the same inside an object or alone) and
 * the UTF-8 pieces are joined. Measured ~0.63 → ~0.38 ms of CPU per response.
 * Should a mark's text also occur in the answer, the plain path is taken.
 */
export function encodeAttribution(response: AttributionResponse): Buffer {
  const marked = JSON.stringify({
    ...response,
    source_footer: { ...response.source_footer, rendered_text: JSON.parse(FOOTER_TEXT_MARK) as string },
    display: { ...response.display, rendered_text: JSON.parse(DISPLAY_TEXT_MARK) as string },
  });
  const footerAt = marked.indexOf(FOOTER_TEXT_MARK);
  const displayAt = marked.indexOf(DISPLAY_TEXT_MARK);
  if (footerAt < 0 || displayAt < footerAt || marked.indexOf(FOOTER_TEXT_MARK, footerAt + 1) >= 0 || marked.indexOf(DISPLAY_TEXT_MARK, displayAt + 1) >= 0) {
    return ownedBuffer(encoder.encode(JSON.stringify(response)));
  }
  const pieces = [
    marked.slice(0, footerAt),
    JSON.stringify(response.source_footer.rendered_text),
    marked.slice(footerAt + FOOTER_TEXT_MARK.length, displayAt),
    JSON.stringify(response.display.rendered_text),
    marked.slice(displayAt + DISPLAY_TEXT_MARK.length),
  ].map((piece) => encoder.encode(piece));
  const bytes = new Uint8Array(pieces.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const piece of pieces) {
    bytes.set(piece, at);
    at += piece.byteLength;
  }
  return ownedBuffer(bytes);
}

function ownedBuffer(bytes: Uint8Array): Buffer {
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
    const started = performance.now();
    const response = this.#engine.attribute(input);
    const engineMs = performance.now() - started;
    return { summary: summarizeAttribution(response), engineMs, body: Promise.resolve(encodeAttribution(response)) };
  }

  problem(): string | undefined {
    return undefined;
  }

  async close(): Promise<void> {}
}
