/**
 * The body of a put or a part: exactly one of `body_text` (UTF-8) and
 * `body_base64` (strict, padded base64). Decoded before anything is stored,
 * so bad input never leaves a trace.
 */
import { decodeBase64Strict } from '../../core/base64.ts';
import { SvcError } from '../errors.ts';

export function decodeBody(input: { body_text?: string | undefined; body_base64?: string | undefined }): Uint8Array {
  const hasText = input.body_text !== undefined;
  const hasBase64 = input.body_base64 !== undefined;
  if (hasText === hasBase64) {
    throw new SvcError('invalid_request', hasText ? 'send body_text or body_base64, not both' : 'the body is missing: send body_text or body_base64', {
      details: { field: 'body_text|body_base64' },
    });
  }
  if (hasText) return new TextEncoder().encode(input.body_text);
  const bytes = decodeBase64Strict(input.body_base64!);
  if (!bytes) throw new SvcError('invalid_request', 'body_base64 is not valid base64 (standard alphabet, padded)', { details: { field: 'body_base64' } });
  return bytes;
}
