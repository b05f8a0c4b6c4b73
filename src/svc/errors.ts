/**
 * The one error type of svc. Every failure that reaches a client is an
 * `SvcError` with a stable code; the HTTP status, the gRPC status and the
 * default retryability come from the table below and nowhere else.
 * The wire message is written for clients; `cause` stays server-side.
 */

export const ERROR_TABLE = {
  // Codes named by the spec.
  invalid_work_unit: { http: 400, grpc: 3 /* INVALID_ARGUMENT */, retryable: false },
  policy_denied: { http: 403, grpc: 7 /* PERMISSION_DENIED */, retryable: false },
  contract_violation: { http: 422, grpc: 9 /* FAILED_PRECONDITION */, retryable: false },
  verifier_failed: { http: 502, grpc: 13 /* INTERNAL */, retryable: false },
  plugin_unavailable: { http: 503, grpc: 14 /* UNAVAILABLE */, retryable: true },
  adapter_unavailable: { http: 503, grpc: 14, retryable: true },
  manifest_not_found: { http: 404, grpc: 5 /* NOT_FOUND */, retryable: false },
  rehydration_failed: { http: 500, grpc: 15 /* DATA_LOSS */, retryable: false },
  cache_permission_denied: { http: 403, grpc: 7, retryable: false },
  model_route_failed: { http: 502, grpc: 14, retryable: true },
  backend_timeout: { http: 504, grpc: 4 /* DEADLINE_EXCEEDED */, retryable: true },
  // Codes this project adds (docs/errors.md lists each with when it is used).
  invalid_request: { http: 400, grpc: 3, retryable: false },
  unauthenticated: { http: 401, grpc: 16 /* UNAUTHENTICATED */, retryable: false },
  forbidden: { http: 403, grpc: 7, retryable: false },
  tenant_forbidden: { http: 403, grpc: 7, retryable: false },
  not_found: { http: 404, grpc: 5, retryable: false },
  conflict: { http: 409, grpc: 6 /* ALREADY_EXISTS */, retryable: false },
  payload_too_large: { http: 413, grpc: 8 /* RESOURCE_EXHAUSTED */, retryable: false },
  range_not_satisfiable: { http: 416, grpc: 11 /* OUT_OF_RANGE */, retryable: false },
  approval_required: { http: 403, grpc: 7, retryable: false },
  approval_invalid: { http: 403, grpc: 7, retryable: false },
  rate_limited: { http: 429, grpc: 8, retryable: true },
  unavailable: { http: 503, grpc: 14, retryable: true },
  /** The path exists, the method does not (405 with `Allow`). */
  method_not_allowed: { http: 405, grpc: 12 /* UNIMPLEMENTED */, retryable: false },
  /** A plugin bundle whose signature or file digests do not check out against the trust list (install, enable). */
  plugin_signature_invalid: { http: 422, grpc: 9, retryable: false },
  internal: { http: 500, grpc: 13, retryable: true },
} as const satisfies Record<string, { http: number; grpc: number; retryable: boolean }>;

export type SvcErrorCode = keyof typeof ERROR_TABLE;

export interface SvcErrorOptions {
  workUnitId?: string;
  policyBundleId?: string;
  retryable?: boolean;
  /** Extra machine-readable detail for clients (never secrets or payload text). */
  details?: Record<string, unknown>;
  /** The underlying error; logged, never sent. */
  cause?: unknown;
}

export class SvcError extends Error {
  readonly code: SvcErrorCode;
  readonly workUnitId: string | undefined;
  readonly policyBundleId: string | undefined;
  readonly retryable: boolean;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: SvcErrorCode, message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SvcError';
    this.code = code;
    this.workUnitId = options.workUnitId;
    this.policyBundleId = options.policyBundleId;
    this.retryable = options.retryable ?? ERROR_TABLE[code].retryable;
    this.details = options.details;
  }

  get httpStatus(): number {
    return ERROR_TABLE[this.code].http;
  }

  get grpcStatus(): number {
    return ERROR_TABLE[this.code].grpc;
  }

  /** A copy bound to a work unit / bundle, for errors raised below the layer that knows them. */
  withContext(ctx: { workUnitId?: string | undefined; policyBundleId?: string | undefined }): SvcError {
    const opts: SvcErrorOptions = { retryable: this.retryable, cause: this.cause };
    const wu = this.workUnitId ?? ctx.workUnitId;
    const pb = this.policyBundleId ?? ctx.policyBundleId;
    if (wu !== undefined) opts.workUnitId = wu;
    if (pb !== undefined) opts.policyBundleId = pb;
    if (this.details !== undefined) opts.details = this.details;
    return new SvcError(this.code, this.message, opts);
  }

  /** Normalises anything thrown into an SvcError; unknown errors become `internal` with a safe message. */
  static from(err: unknown): SvcError {
    if (err instanceof SvcError) return err;
    return new SvcError('internal', 'internal error', { cause: err });
  }
}

/** The spec's error body. `work_unit_id` and `policy_bundle_id` are always present (null when unknown). */
export interface ErrorBody {
  error: {
    code: SvcErrorCode;
    message: string;
    work_unit_id: string | null;
    policy_bundle_id: string | null;
    retryable: boolean;
    details?: Record<string, unknown>;
  };
}

export function errorBody(err: SvcError): ErrorBody {
  const body: ErrorBody = {
    error: {
      code: err.code,
      message: err.message,
      work_unit_id: err.workUnitId ?? null,
      policy_bundle_id: err.policyBundleId ?? null,
      retryable: err.retryable,
    },
  };
  if (err.details) body.error.details = err.details;
  return body;
}
