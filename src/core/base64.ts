/**
 * Strict base64 decoding. `Buffer.from(s, 'base64')` silently skips invalid
 * characters, which would store something other than what the client sent;
 * we reject instead.
 *
 * The check is linear: an alphabet test without nested quantifiers (a
 * grouped `(?:…{4})*` pattern overflows V8's regexp stack on inputs of a few
 * MiB) and a re-encoding that must give back the same text, which also
 * rejects missing padding and non-zero padding bits.
 */
const ALPHABET = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decoded bytes, or undefined when `text` is not canonical padded base64. */
export function decodeBase64Strict(text: string): Uint8Array | undefined {
  if (text.length % 4 !== 0 || !ALPHABET.test(text)) return undefined;
  const buf = Buffer.from(text, 'base64');
  if (buf.toString('base64') !== text) return undefined;
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}
