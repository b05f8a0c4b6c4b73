/**
 * The body footer of the raw byte routes (decision 198): a client that does
 * not know its body's length or digest before it sends (a pipe: `svc execute
 * --file -`) appends both to the bytes themselves, announced by the request
 * header `X-SVC-Content-Footer: sha256`:
 *
 *     body = object bytes ‖ "SVCF" ‖ length (uint64, big-endian) ‖ SHA-256 (32 bytes)
 *
 * Unlike an HTTP trailer (decision 194), a footer is part of the body, so
 * every proxy passes it on (nginx drops request trailers), and the server
 * still checks length and digest before anything is stored. The server holds
 * back the last {@link FOOTER_BYTES} of the stream until it ends, so the
 * object's bytes go on to chunking as they arrive.
 *
 * Used by the server (http/raw-body.ts) and the CLI (cli/byte-transfer.ts).
 */
import { SvcError } from '../errors.ts';

/** The announcing header and its one value. */
export const FOOTER_HEADER = 'x-svc-content-footer';
export const FOOTER_SCHEME = 'sha256';

const MAGIC = Buffer.from('SVCF', 'ascii');
/** Magic, length, digest. */
export const FOOTER_BYTES = MAGIC.length + 8 + 32;

export interface BodyFooter {
  /** The object's length in bytes, as the client declared it. */
  length: number;
  /** The object's SHA-256, lowercase hex, as the client declared it. */
  sha256: string;
}

/** The footer a client appends after `length` bytes whose SHA-256 is `sha256` (hex). */
export function encodeFooter(length: number, sha256: string): Buffer {
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`footer length must be a byte count, got ${length}`);
  if (!/^[0-9a-fA-F]{64}$/.test(sha256)) throw new RangeError('footer digest must be 64 hex digits');
  const footer = Buffer.allocUnsafe(FOOTER_BYTES);
  MAGIC.copy(footer, 0);
  footer.writeBigUInt64BE(BigInt(length), MAGIC.length);
  footer.write(sha256, MAGIC.length + 8, 'hex');
  return footer;
}

function footerMissing(why: string): SvcError {
  return new SvcError('invalid_request', `the request announced ${FOOTER_HEADER}: ${FOOTER_SCHEME}, but ${why}; nothing was stored`, {
    details: { header: FOOTER_HEADER, reason: 'footer_missing' },
  });
}

/** Reads a footer. @throws SvcError `invalid_request` (`footer_missing`) when `bytes` is not one. */
export function decodeFooter(bytes: Uint8Array): BodyFooter {
  const footer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (footer.length !== FOOTER_BYTES) throw footerMissing(`the body is shorter than its ${FOOTER_BYTES}-byte footer`);
  if (!footer.subarray(0, MAGIC.length).equals(MAGIC)) throw footerMissing('the body does not end with a footer (no "SVCF" mark where it should start)');
  const length = footer.readBigUInt64BE(MAGIC.length);
  if (length > BigInt(Number.MAX_SAFE_INTEGER)) throw footerMissing('the footer\'s length is not a byte count');
  return { length: Number(length), sha256: footer.toString('hex', MAGIC.length + 8) };
}

/**
 * The object's bytes of a footed body, and its footer once they have ended.
 * Pieces go on as they arrive, less the last {@link FOOTER_BYTES} seen so far
 * (held back: they may be the footer). `footer()` is undefined until the
 * stream has ended; a stream that ends without a valid footer fails with
 * `footer_missing` at its end, before the consumer sees its last bytes as
 * complete.
 */
export function splitFooter(source: AsyncIterable<Uint8Array>): { bytes: AsyncIterable<Uint8Array>; footer: () => BodyFooter | undefined } {
  let footer: BodyFooter | undefined;
  async function* bytes(): AsyncGenerator<Uint8Array> {
    // Never more than FOOTER_BYTES, always a copy: the transport may reuse the memory of a piece already passed on.
    let tail = Buffer.alloc(0);
    for await (const piece of source) {
      if (piece.byteLength >= FOOTER_BYTES) {
        // Copied before anything is yielded: the consumer may hand the piece's memory back meanwhile.
        const held = Buffer.from(piece.subarray(piece.byteLength - FOOTER_BYTES));
        if (tail.length > 0) yield tail;
        if (piece.byteLength > FOOTER_BYTES) yield piece.subarray(0, piece.byteLength - FOOTER_BYTES);
        tail = held;
        continue;
      }
      const joined = Buffer.concat([tail, piece]);
      const over = joined.length - FOOTER_BYTES;
      if (over > 0) yield joined.subarray(0, over);
      tail = over > 0 ? joined.subarray(over) : joined;
    }
    footer = decodeFooter(tail);
  }
  return { bytes: bytes(), footer: () => footer };
}
