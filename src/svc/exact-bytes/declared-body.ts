/**
 * A byte stream whose length — and, optionally, SHA-256 — the client
 * declared before sending it (the raw byte routes: `Content-Length` and
 * `X-SVC-Content-SHA256`, like S3's `x-amz-content-sha256`; decision 112).
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

export interface DeclaredBody {
  source: AsyncIterable<Uint8Array>;
  /** Bytes the client said it would send. */
  length: number;
  /** Lowercase hex SHA-256 the client said the bytes have; absent when it declared none. */
  sha256?: string | undefined;
}

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const DECIMAL = /^[0-9]{1,16}$/;

/**
 * Checks a declaration as the transport received it (header strings) and
 * pairs it with the stream.
 * @throws SvcError `invalid_request` when the length is missing or not a decimal, or the digest is not 64 hex digits.
 */
export function declaredBody(input: { source: AsyncIterable<Uint8Array>; length: string | undefined; sha256: string | undefined }): DeclaredBody {
  if (input.length === undefined) {
    throw new SvcError('invalid_request', 'the raw byte routes need Content-Length (chunked bodies are refused: the length is part of what the server checks)', {
      details: { header: 'content-length', reason: 'length_required' },
    });
  }
  if (!DECIMAL.test(input.length) || !Number.isSafeInteger(Number(input.length))) {
    throw new SvcError('invalid_request', 'Content-Length must be a decimal byte count', { details: { header: 'content-length' } });
  }
  if (input.sha256 !== undefined && !SHA256_HEX.test(input.sha256)) {
    throw new SvcError('invalid_request', 'X-SVC-Content-SHA256 must be the body\'s SHA-256 as 64 hex digits', { details: { header: 'x-svc-content-sha256' } });
  }
  return { source: input.source, length: Number(input.length), sha256: input.sha256?.toLowerCase() };
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
  const hash = options.hash && body.sha256 !== undefined ? createHash('sha256') : undefined;
  let received = 0;
  try {
    for await (const piece of body.source) {
      received += piece.byteLength;
      if (received > body.length) throw lengthMismatch(body.length, received);
      hash?.update(piece);
      yield piece;
    }
  } catch (err) {
    if (err instanceof SvcError) throw err;
    // The transport failed (connection reset, aborted upload): what arrived is short of the declaration.
    throw lengthMismatch(body.length, received, err);
  }
  if (received !== body.length) throw lengthMismatch(body.length, received);
  if (hash) assertDeclaredDigest(body, hash.digest('hex'));
}

/** @throws SvcError `invalid_request` (`digest_mismatch`) when the client declared a digest other than `actual`. */
export function assertDeclaredDigest(body: Pick<DeclaredBody, 'sha256'>, actual: string): void {
  if (body.sha256 === undefined || body.sha256 === actual) return;
  throw new SvcError('invalid_request', 'the body does not have the SHA-256 declared in X-SVC-Content-SHA256; nothing was stored', {
    details: { reason: 'digest_mismatch', declared_sha256: body.sha256, actual_sha256: actual },
  });
}
