/**
 * The one error type of attr. Every failure that reaches a client or a CLI is
 * an `AttrError` with a stable code; the HTTP status and retryability come
 * from the table below and nowhere else (the attr HTTP layer maps it once).
 * The wire message is written for clients; `cause` stays server-side and is
 * never serialised (it may hold prompt or provider text).
 */

export const ATTR_ERROR_TABLE = {
  // Request validation.
  invalid_request: { http: 400, retryable: false },
  // Text that is not well-formed UTF-16 (a lone surrogate): it has no UTF-8 form to hash or show.
  invalid_unicode: { http: 400, retryable: false },
  // A JSON key that could poison prototypes (`__proto__`, `constructor.prototype`).
  forbidden_json_key: { http: 400, retryable: false },
  invalid_gross_revenue: { http: 400, retryable: false },
  negative_revenue: { http: 400, retryable: false },
  // Size limits (prompt, output, request, provider output).
  payload_too_large: { http: 413, retryable: false },
  // Authentication and rate limiting.
  unauthenticated: { http: 401, retryable: false },
  rate_limited: { http: 429, retryable: true },
  // Corpus loading (start-up; surfaced by config validation and readiness).
  corpus_unreadable: { http: 500, retryable: false },
  corpus_invalid: { http: 500, retryable: false },
  corpus_hash_mismatch: { http: 500, retryable: false },
  // Provider mode.
  unknown_provider: { http: 400, retryable: false },
  provider_key_missing: { http: 503, retryable: false },
  provider_failed: { http: 502, retryable: true },
  provider_filtered: { http: 502, retryable: false },
  provider_malformed: { http: 502, retryable: false },
  provider_output_too_large: { http: 502, retryable: false },
  // HTTP surface (added by attr-service): unknown route, wrong content type.
  not_found: { http: 404, retryable: false },
  unsupported_media_type: { http: 415, retryable: false },
  // Audit log cannot record the request: nothing is released (fail closed).
  audit_unavailable: { http: 500, retryable: true },
  // Readiness gate and internals.
  not_ready: { http: 503, retryable: true },
  internal: { http: 500, retryable: true },
} as const satisfies Record<string, { http: number; retryable: boolean }>;

export type AttrErrorCode = keyof typeof ATTR_ERROR_TABLE;

export interface AttrErrorOptions {
  retryable?: boolean;
  /** Machine-readable detail for clients (never secrets, prompt or answer text). */
  details?: Record<string, unknown>;
  /** The underlying error; logged, never sent. */
  cause?: unknown;
}

export class AttrError extends Error {
  readonly code: AttrErrorCode;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: AttrErrorCode, message: string, options: AttrErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AttrError';
    this.code = code;
    this.retryable = options.retryable ?? ATTR_ERROR_TABLE[code].retryable;
    this.details = options.details;
  }

  get httpStatus(): number {
    return ATTR_ERROR_TABLE[this.code].http;
  }

  /** Normalises anything thrown into an AttrError; unknown errors become `internal` with a safe message. */
  static from(err: unknown): AttrError {
    if (err instanceof AttrError) return err;
    return new AttrError('internal', 'internal error', { cause: err });
  }
}

/** The attr error body: `{ error: { code, message, retryable, details? } }`. */
export interface AttrErrorBody {
  error: { code: AttrErrorCode; message: string; retryable: boolean; details?: Record<string, unknown> };
}

export function attrErrorBody(err: AttrError): AttrErrorBody {
  const body: AttrErrorBody = { error: { code: err.code, message: err.message, retryable: err.retryable } };
  if (err.details) body.error.details = err.details;
  return body;
}
