/**
 * Strict base64 decoding. `Buffer.from(s, 'base64')` silently skips invalid
 * characters, which would store something other than what the client sent;
 * we reject instead.
 */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decoded bytes, or undefined when `text` is not canonical padded base64. */
export function decodeBase64Strict(text: string): Uint8Array | undefined {
  if (!BASE64.test(text)) return undefined;
  const buf = Buffer.from(text, 'base64');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}
