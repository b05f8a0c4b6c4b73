/**
 * The error body of the OpenAI-compatible routes: what OpenAI clients parse
 * (`message`, `type`, `param`, `code`) plus the spec's fields
 * (`work_unit_id`, `policy_bundle_id`, `retryable`), so the official SDKs
 * raise typed errors and svc clients keep their ids.
 */
import type { SvcError, SvcErrorCode } from '../../errors.ts';

export interface OpenAiErrorBody {
  error: {
    message: string;
    type: string;
    param: string | null;
    code: SvcErrorCode;
    work_unit_id: string | null;
    policy_bundle_id: string | null;
    retryable: boolean;
    details?: Record<string, unknown>;
  };
}

/** OpenAI's error `type` family for each svc code. */
export function openAiErrorType(code: SvcErrorCode): string {
  switch (code) {
    case 'invalid_request':
    case 'invalid_work_unit':
    case 'payload_too_large':
    case 'contract_violation':
      return 'invalid_request_error';
    case 'unauthenticated':
      return 'authentication_error';
    case 'forbidden':
    case 'tenant_forbidden':
    case 'policy_denied':
    case 'cache_permission_denied':
    case 'approval_required':
    case 'approval_invalid':
      return 'permission_error';
    case 'not_found':
    case 'manifest_not_found':
      return 'not_found_error';
    case 'rate_limited':
      return 'rate_limit_error';
    default:
      return 'api_error';
  }
}

export function openAiErrorBody(err: SvcError): OpenAiErrorBody {
  const param = typeof err.details?.param === 'string' ? err.details.param : null;
  const body: OpenAiErrorBody = {
    error: {
      message: err.message,
      type: openAiErrorType(err.code),
      param,
      code: err.code,
      work_unit_id: err.workUnitId ?? null,
      policy_bundle_id: err.policyBundleId ?? null,
      retryable: err.retryable,
    },
  };
  if (err.details) body.error.details = err.details;
  return body;
}
