/**
 * The one place an `SvcError` becomes a gRPC status. The status code comes
 * from `ERROR_TABLE` (src/svc/errors.ts) through `err.grpcStatus`; the
 * status message is the error's client-safe message; trailing metadata
 * carries the spec's error body:
 *
 * - `svc-error-bin`: the error body `{"error":{code,message,work_unit_id,policy_bundle_id,retryable,details?}}`
 *   as UTF-8 JSON (binary metadata: messages may hold non-ASCII text);
 * - `svc-error-code`: the code alone, readable by any tool;
 * - `x-svc-work-unit-id`, `x-svc-policy-bundle`: when the error names them;
 * - `grpc-status-details-bin`: the same body in the standard rich-status form
 *   (`google.rpc.Status` with `ErrorInfo` and the body; standard/status-details.ts).
 */
import * as grpc from '@grpc/grpc-js';
import { type SvcError, errorBody } from '../errors.ts';
import { STATUS_DETAILS_KEY, encodeStatusDetails } from './standard/status-details.ts';

export const ERROR_BODY_KEY = 'svc-error-bin';
export const ERROR_CODE_KEY = 'svc-error-code';

/** Ids only; anything else is left out rather than risk text in metadata. */
const SAFE_ID = /^[A-Za-z0-9_.:@/-]{1,200}$/;

export function toStatusError(err: SvcError): grpc.ServerErrorResponse {
  const metadata = new grpc.Metadata();
  const body = errorBody(err);
  metadata.set(ERROR_BODY_KEY, Buffer.from(JSON.stringify(body), 'utf8'));
  metadata.set(STATUS_DETAILS_KEY, encodeStatusDetails(err.grpcStatus, body));
  metadata.set(ERROR_CODE_KEY, err.code);
  if (err.workUnitId && SAFE_ID.test(err.workUnitId)) metadata.set('x-svc-work-unit-id', err.workUnitId);
  if (err.policyBundleId && SAFE_ID.test(err.policyBundleId)) metadata.set('x-svc-policy-bundle', err.policyBundleId);
  return Object.assign(new Error(err.message), { code: err.grpcStatus, details: err.message, metadata });
}

/** Reads the error body back from a status's metadata (clients and tests). */
export function errorBodyOf(metadata: grpc.Metadata | undefined): ReturnType<typeof errorBody> | undefined {
  const raw = metadata?.get(ERROR_BODY_KEY)[0];
  if (raw === undefined) return undefined;
  return JSON.parse(Buffer.isBuffer(raw) ? raw.toString('utf8') : raw) as ReturnType<typeof errorBody>;
}
