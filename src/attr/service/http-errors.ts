/**
 * The one place errors become HTTP responses. Anything thrown — an
 * `AttrError`, a fastify validation or body-parser error, or an unexpected
 * exception — is normalised to an `AttrError` and sent as
 * `{ error: { code, message, retryable, details? } }` with the status of its
 * code (src/attr/errors.ts). Unexpected errors are logged server-side with
 * their cause and sent as `internal` with a safe message.
 */
import type { FastifyError } from 'fastify';
import { AttrError } from '../errors.ts';

/** Maps anything a request can throw to the AttrError sent to the client. */
export function toAttrError(err: unknown): AttrError {
  if (err instanceof AttrError) return err;
  const fe = err as Partial<FastifyError> & { validation?: Array<{ instancePath?: string; message?: string }> };
  if (Array.isArray(fe.validation)) {
    const issues = fe.validation.slice(0, 10).map((v) => ({ path: v.instancePath ?? '', message: v.message ?? 'invalid' }));
    return new AttrError('invalid_request', 'request body does not match the schema', { details: { issues } });
  }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AttrError('payload_too_large', 'request body exceeds limits.max_request_bytes');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new AttrError('unsupported_media_type', 'request bodies must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AttrError('invalid_request', 'request body is empty or has an invalid length');
    default:
      if (fe.statusCode === 400) return new AttrError('invalid_request', 'request body is not valid JSON');
      return AttrError.from(err);
  }
}
