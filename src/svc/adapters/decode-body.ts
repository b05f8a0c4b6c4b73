/** Decodes an adapter request body (strict padded base64) under the configured size limit; bad input stores nothing. */
import { decodeBase64Strict } from '../../core/base64.ts';
import { SvcError } from '../errors.ts';

export function decodeAdapterBody(body64: string, maxBytes: number): Uint8Array {
  // base64 is 4/3 of the bytes: refuse before decoding a body that cannot fit.
  if (Math.floor((body64.length * 3) / 4) > maxBytes + 2) throw new SvcError('payload_too_large', `the body is larger than adapters.max_body_bytes (${maxBytes})`);
  const bytes = decodeBase64Strict(body64);
  if (!bytes) throw new SvcError('invalid_request', 'body_base64 is not valid base64 (standard alphabet, padded)', { details: { field: 'body_base64' } });
  if (bytes.byteLength > maxBytes) throw new SvcError('payload_too_large', `the body is larger than adapters.max_body_bytes (${maxBytes})`);
  if (bytes.byteLength === 0) throw new SvcError('invalid_request', 'the body is empty', { details: { field: 'body_base64' } });
  return bytes;
}
