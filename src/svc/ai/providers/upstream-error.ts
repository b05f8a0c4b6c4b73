/**
 * Mapping of upstream failures to svc errors. Retryability follows the
 * status: 408, 409, 429 and 5xx may succeed on retry; other 4xx will not.
 * The upstream's message is NOT forwarded (it can echo prompt text); its
 * status and error type/code are.
 */
import { SvcError } from '../../errors.ts';

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

export function upstreamStatusError(provider: string, status: number, body: unknown): SvcError {
  const err = (typeof body === 'object' && body !== null ? (body as { error?: { type?: unknown; code?: unknown } }).error : undefined) ?? {};
  const details: Record<string, unknown> = { provider, upstream_status: status };
  if (typeof err.type === 'string') details.upstream_type = err.type.slice(0, 100);
  if (typeof err.code === 'string') details.upstream_code = err.code.slice(0, 100);
  return new SvcError('model_route_failed', `provider '${provider}' answered HTTP ${status}`, { retryable: isRetryableStatus(status), details });
}

export function upstreamTimeoutError(provider: string, phase: 'connect' | 'request' | 'stream_idle', ms: number): SvcError {
  return new SvcError('backend_timeout', `provider '${provider}' did not answer within ${ms} ms (${phase})`, { details: { provider, phase, timeout_ms: ms } });
}

export function upstreamNetworkError(provider: string, cause: unknown): SvcError {
  const code = typeof cause === 'object' && cause !== null && typeof (cause as { code?: unknown }).code === 'string' ? (cause as { code: string }).code : 'network_error';
  return new SvcError('model_route_failed', `provider '${provider}' is unreachable (${code})`, { retryable: true, details: { provider, network_error: code }, cause });
}

export function malformedUpstreamError(provider: string, what: string): SvcError {
  return new SvcError('model_route_failed', `provider '${provider}' sent a malformed response (${what})`, { retryable: true, details: { provider } });
}
