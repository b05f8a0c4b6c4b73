/**
 * A byte stream whose length — and, optionally, SHA-256 — the client
 * declared (the raw byte routes: `Content-Length` and `X-SVC-Content-SHA256`,
 * like S3's `x-amz-content-sha256`; decision 112). The digest may also come
 * after the bytes (an HTTP trailer, like S3's trailing checksums; decision
 * 194), so a client can hash while it sends instead of reading its file twice.
 * A client that knows neither before it sends (a pipe) puts both in a footer
 * at the end of the body (body-footer.ts, decision 198); such a body is held
 * to the route's limit while it streams.
 *
 * The declaration is checked while the bytes stream, not after buffering
 * them: {@link readDeclared} fails the stream the moment it runs past the
 * declared length, when it ends short of it, or when the transport breaks
 * off; {@link assertDeclaredDigest} compares the digest the consumer
 * computed anyway (ingest hashes every object) with the declared one. Both
 * fail before the consumer commits anything, so a body that does not match
 * its declaration stores nothing a manifest or object version refers to.
 */
import { createHash } from 'node:crypto';
import { SvcError } from '../errors.ts';
import { FOOTER_HEADER, splitFooter } from './body-footer.ts';

export interface DeclaredBody {
  source: AsyncIterable<Uint8Array>;
  /** Bytes the client said it would send, before sending them; undefined when it declares them after the bytes (`trailingLength`). */
  length: number | undefined;
  /** The most bytes a body whose length comes after it may have (the route's limit); it is refused the moment it passes this. */
  maxLength?: number | undefined;
  /** The length the client sends after the bytes (a body footer), called only once `source` has ended. */
  trailingLength?: (() => number | undefined) | undefined;
  /** Lowercase hex SHA-256 the client said the bytes have, before sending them; absent when it declared none up front. */
  sha256?: string | undefined;
  /**
   * The SHA-256 the client sends after the bytes (an HTTP trailer), as the transport received it: called only once
   * `source` has ended, undefined when it never came. Present only when the client announced it; then `sha256` is
   * absent (one declaration or the other).
   */
  trailingSha256?: (() => string | undefined) | undefined;
}

/** What the client declared about a body, without the body. */
export type Declaration = Omit<DeclaredBody, 'source'>;

/** The declaration of `body`, for consumers that get its bytes some other way. */
export function declarationOf(body: DeclaredBody): Declaration {
  const { source: _source, ...declaration } = body;
  return declaration;
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const DECIMAL = /^[0-9]{1,16}$/;

/**
 * Checks a declaration as the transport received it (header strings) and
 * pairs it with the stream.
 * @throws SvcError `invalid_request` when the length is missing or not a decimal, or the digest is not 64 hex digits.
 */
export function declaredBody(input: {
  source: AsyncIterable<Uint8Array>;
  length: string | undefined;
  sha256: string | undefined;
  /** Where the transport finds the trailing digest once the bytes have ended; only when the client announced one. */
  trailingSha256?: (() => string | undefined) | undefined;
  /** The header that carried `length` (for error details): `content-length` unless the body is chunked. */
  lengthHeader?: string;
  /**
   * The body ends with a footer declaring its length and digest (body-footer.ts): then `length` is the whole body's
   * (object and footer) when the transport knows it, and `maxLength` bounds the object's bytes.
   */
  footer?: { maxLength: number } | undefined;
}): DeclaredBody {
  if (input.footer) return footedBody(input, input.footer.maxLength);
  const lengthHeader = input.lengthHeader ?? 'content-length';
  if (input.length === undefined) {
    throw new SvcError('invalid_request', 'the raw byte routes need the body\'s length: Content-Length, or X-SVC-Content-Length with a chunked body (the length is part of what the server checks)', {
      details: { header: lengthHeader, reason: 'length_required' },
    });
  }
  if (!DECIMAL.test(input.length) || !Number.isSafeInteger(Number(input.length))) {
    throw new SvcError('invalid_request', `${lengthHeader} must be a decimal byte count`, { details: { header: lengthHeader } });
  }
  if (input.sha256 !== undefined && !SHA256_HEX.test(input.sha256)) {
    throw new SvcError('invalid_request', 'X-SVC-Content-SHA256 must be the body\'s SHA-256 as 64 hex digits', { details: { header: 'x-svc-content-sha256' } });
  }
  if (input.sha256 !== undefined && input.trailingSha256 !== undefined) {
    throw new SvcError('invalid_request', 'declare X-SVC-Content-SHA256 either as a header or as a trailer, not both', { details: { header: 'trailer', reason: 'digest_declared_twice' } });
  }
  return {
    source: input.source,
    length: Number(input.length),
    sha256: input.sha256?.toLowerCase(),
    ...(input.trailingSha256 ? { trailingSha256: input.trailingSha256 } : {}),
  };
}

/** A body whose length and digest come in its footer: no other declaration of them is taken. */
function footedBody(input: { source: AsyncIterable<Uint8Array>; sha256: string | undefined; trailingSha256?: unknown }, maxLength: number): DeclaredBody {
  if (input.sha256 !== undefined || input.trailingSha256 !== undefined) {
    throw new SvcError('invalid_request', `a body with ${FOOTER_HEADER} declares its digest in the footer: send no X-SVC-Content-SHA256 header or trailer beside it`, {
      details: { header: FOOTER_HEADER, reason: 'digest_declared_twice' },
    });
  }
  const { bytes, footer } = splitFooter(input.source);
  return { source: bytes, length: undefined, maxLength, sha256: undefined, trailingSha256: () => footer()?.sha256, trailingLength: () => footer()?.length };
}

/** What a body may hold at most, for choosing how to ingest it: its declared length, else the bound it streams under. */
export function sizeHintOf(body: Pick<DeclaredBody, 'length' | 'maxLength'>): number | undefined {
  return body.length ?? body.maxLength;
}

/**
 * The digest the client declared, up front or in its trailer (lowercase hex); undefined when it declared none.
 * A trailing digest is read only here, once the bytes have ended.
 * @throws SvcError `invalid_request` (`digest_missing`) when an announced trailer never came or is not 64 hex digits.
 */
export function declaredDigest(body: Pick<DeclaredBody, 'sha256' | 'trailingSha256'>): string | undefined {
  if (body.sha256 !== undefined || body.trailingSha256 === undefined) return body.sha256;
  const trailing = body.trailingSha256();
  if (trailing === undefined || !SHA256_HEX.test(trailing)) {
    throw new SvcError('invalid_request', 'the X-SVC-Content-SHA256 trailer the request announced did not come as 64 hex digits after the body (proxies may drop request trailers: send the digest as a header); nothing was stored', {
      details: { header: 'x-svc-content-sha256', reason: 'digest_missing' },
    });
  }
  return trailing.toLowerCase();
}

function tooLarge(limit: number): SvcError {
  return new SvcError('payload_too_large', `the body is longer than the ${limit} bytes this route takes; nothing was stored`, { details: { limit_bytes: limit } });
}

function lengthMismatch(declared: number, received: number, cause?: unknown): SvcError {
  const message = received > declared ? `the body is longer than the ${declared} bytes declared` : `the body ended after ${received} of the ${declared} bytes declared`;
  return new SvcError('invalid_request', `${message}; nothing was stored`, {
    details: { reason: 'length_mismatch', declared_length: declared, received_length: received },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * The declared stream, failing with `invalid_request` (`length_mismatch`) as
 * soon as it is longer than declared, when it ends short, or when the
 * transport breaks off part way (a client that hung up). With `hash`, the
 * digest is checked at the end too (for consumers that do not hash the
 * whole stream themselves, such as multipart parts).
 */
export async function* readDeclared(body: DeclaredBody, options: { hash?: boolean } = {}): AsyncGenerator<Uint8Array> {
  const hash = options.hash && (body.sha256 !== undefined || body.trailingSha256 !== undefined) ? createHash('sha256') : undefined;
  // Up front: the declared length; declared after the bytes: the route's limit until it comes.
  const bound = body.length ?? body.maxLength ?? 0;
  let received = 0;
  try {
    for await (const piece of body.source) {
      received += piece.byteLength;
      if (received > bound) throw body.length === undefined ? tooLarge(bound) : lengthMismatch(bound, received);
      hash?.update(piece);
      yield piece;
    }
  } catch (err) {
    if (err instanceof SvcError) throw err;
    // The transport failed (connection reset, aborted upload): what arrived is short of the declaration.
    if (body.length !== undefined) throw lengthMismatch(body.length, received, err);
    throw new SvcError('invalid_request', `the body broke off after ${received} bytes, before its footer; nothing was stored`, { details: { reason: 'length_mismatch', received_length: received }, cause: err });
  }
  const declaredLength = body.length ?? body.trailingLength?.();
  if (declaredLength === undefined) throw new Error('a body without a declared length reached readDeclared (declaredBody refuses one)');
  if (received !== declaredLength) throw lengthMismatch(declaredLength, received);
  if (hash) assertDeclaredDigest(body, hash.digest('hex'));
  // A trailer that was announced and did not come fails here, with the stream, whoever checks the digest later.
  else declaredDigest(body);
}

/** @throws SvcError `invalid_request` (`digest_mismatch`) when the client declared a digest other than `actual` (`digest_missing`: see {@link declaredDigest}). */
export function assertDeclaredDigest(body: Pick<DeclaredBody, 'sha256' | 'trailingSha256'>, actual: string): void {
  const declared = declaredDigest(body);
  if (declared === undefined || declared === actual) return;
  throw new SvcError('invalid_request', 'the body does not have the SHA-256 declared in X-SVC-Content-SHA256; nothing was stored', {
    details: { reason: 'digest_mismatch', declared_sha256: declared, actual_sha256: actual },
  });
}
