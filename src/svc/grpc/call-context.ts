/**
 * Per-call identity: the trace id (from `traceparent` metadata, else fresh)
 * and the principal, resolved by the same `authenticate` the HTTP server
 * uses from the same two credentials — `x-api-key` or `authorization: Bearer`.
 */
import type { Metadata, MetadataValue } from '@grpc/grpc-js';
import { authenticate, type Credentials } from '../auth/credentials.ts';
import type { RequestContext } from '../context.ts';
import { traceIdFrom } from '../observability/trace-id.ts';

/** Initial-metadata key carrying the trace id of every call (the gRPC form of `X-SVC-Trace-ID`). */
export const TRACE_ID_KEY = 'x-svc-trace-id';

/**
 * One metadata entry as a header value: absent → undefined, one value → the
 * string, several → the list (which `authenticate` refuses, as it refuses a
 * repeated header). Only `-bin` keys carry Buffers, and none is read here.
 */
function headerValue(values: MetadataValue[]): string | string[] | undefined {
  const strings = values.map((v) => (typeof v === 'string' ? v : ''));
  if (strings.length === 0) return undefined;
  return strings.length === 1 ? strings[0] : strings;
}

/** W3C trace id of the call's `traceparent`, or a fresh random one. */
export function traceIdOf(metadata: Metadata): string {
  return traceIdFrom(headerValue(metadata.get('traceparent')));
}

/** Authenticates the call; throws `unauthenticated` (gRPC UNAUTHENTICATED) like the HTTP hook. */
export function callContext(credentials: Credentials, metadata: Metadata, traceId: string): RequestContext {
  const principal = authenticate(credentials, {
    'x-api-key': headerValue(metadata.get('x-api-key')),
    authorization: headerValue(metadata.get('authorization')),
  });
  // A presented approval, as REST's X-SVC-Approval header (checked only where a plan requires one).
  const approval = headerValue(metadata.get('x-svc-approval'));
  return { principal, traceId, approvalToken: typeof approval === 'string' ? approval : undefined };
}
