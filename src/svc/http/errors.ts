/**
 * The one place errors become HTTP responses: `SvcError` → status + the
 * spec's error body; framework errors (bad JSON, body too large, unknown
 * route) are first translated into `SvcError`s so clients see one shape.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { SvcError, errorBody } from '../errors.ts';
import type { OpLog } from '../logs/oplog.ts';

export function fromFrameworkError(err: FastifyError): SvcError {
  if (err instanceof SvcError) return err;
  const status = err.statusCode ?? 500;
  if (err.validation) return new SvcError('invalid_request', `invalid request: ${err.message}`);
  if (status === 413) return new SvcError('payload_too_large', 'request body exceeds the configured limit (server.body_limit_bytes); use multipart upload for large objects');
  if (status === 415) return new SvcError('invalid_request', 'unsupported content type: send application/json (application/octet-stream on the raw byte routes, docs/objects.md)');
  if (status === 404) return new SvcError('not_found', 'not found');
  if (status >= 400 && status < 500) return new SvcError('invalid_request', err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY' ? 'the request body is not valid JSON' : err.message);
  return SvcError.from(err);
}

/** A prefixed id (`wu_…`, `pb_…`): the only values error headers carry. */
const HEADER_SAFE_ID = /^[a-z]{1,8}_[0-9a-z]{1,64}$/;

export function sendError(reply: FastifyReply, err: SvcError): FastifyReply {
  reply.request.errorCode = err.code;
  if (!err.retryable) reply.header('x-should-retry', 'false');
  // Only ids go into headers: an id taken from a hostile path (non-ASCII, control characters) would make the header itself fail.
  if (err.workUnitId && HEADER_SAFE_ID.test(err.workUnitId)) reply.header('X-SVC-Work-Unit-ID', err.workUnitId);
  if (err.policyBundleId && HEADER_SAFE_ID.test(err.policyBundleId)) reply.header('X-SVC-Policy-Bundle', err.policyBundleId);
  return reply.status(err.httpStatus).type('application/json').send(errorBody(err));
}

export function makeErrorHandler(log: OpLog) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const err = fromFrameworkError(error);
    // The request's own log line (request-log.ts) names the code; a server fault also gets its cause here.
    if (err.httpStatus >= 500) {
      const fields = { event_type: 'http.error', error_code: err.code, trace_id: request.traceId, work_unit_id: err.workUnitId, route: request.routeOptions.url ?? 'unknown' };
      log.error({ ...fields, cause: err.cause instanceof Error ? err.cause.message : undefined }, `${request.method} ${fields.route} failed: ${err.code}`);
    }
    return sendError(reply, err);
  };
}
