/**
 * Raw `application/octet-stream` request bodies for the raw byte routes
 * (routes/raw-bytes.ts, decision 112). The content-type parser hands the
 * route the request stream itself: fastify reads nothing, so no body limit
 * or buffering of its own applies — the route checks the declared length
 * against `server.raw_body_limit_bytes` before reading, and the domain
 * enforces the declaration while the bytes stream (exact-bytes/declared-body.ts).
 *
 * Registered only in the raw routes' plugin: every other route keeps
 * answering `application/octet-stream` with 415 as before.
 */
import { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { FOOTER_BYTES, FOOTER_HEADER, FOOTER_SCHEME } from '../exact-bytes/body-footer.ts';
import { type DeclaredBody, declaredBody } from '../exact-bytes/declared-body.ts';
import { SvcError } from '../errors.ts';

export const RAW_CONTENT_TYPE = 'application/octet-stream';
export const DIGEST_HEADER = 'x-svc-content-sha256';
/** A chunked body's length (it has no Content-Length), like S3's x-amz-decoded-content-length. */
export const LENGTH_HEADER = 'x-svc-content-length';

/** The OpenAPI view of a raw body and its declaration (routes validate nothing with these: the domain does). */
export const RawBodySchema = { content: { [RAW_CONTENT_TYPE]: { schema: { type: 'string', format: 'binary', description: 'The bytes themselves (no JSON, no base64).' } } } };
export const RawBodyHeaders = Type.Object({
  'content-length': Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'The body\'s length in bytes. Required unless the body is chunked (then X-SVC-Content-Length). A body that ends short is refused and stores nothing.' })),
  [LENGTH_HEADER]: Type.Optional(Type.String({ pattern: '^[0-9]+$', description: 'The length of a chunked body (Transfer-Encoding: chunked), like S3\'s x-amz-decoded-content-length; required for one. A body that runs past it or ends short is refused and stores nothing.' })),
  [DIGEST_HEADER]: Type.Optional(Type.String({ pattern: '^[0-9a-fA-F]{64}$', description: 'The body\'s SHA-256 (hex), like S3\'s x-amz-content-sha256. A body with another digest is refused (400, reason digest_mismatch) and stores nothing. A chunked body may send it as a trailer instead (announced with Trailer: X-SVC-Content-SHA256), so the client hashes while it sends; an announced trailer that does not come is refused (reason digest_missing).' })),
  trailer: Type.Optional(Type.String({ description: 'X-SVC-Content-SHA256 when the digest comes after a chunked body.' })),
  [FOOTER_HEADER]: Type.Optional(Type.Literal(FOOTER_SCHEME, {
    description: `The body ends with a ${FOOTER_BYTES}-byte footer that declares its length and digest: "SVCF", the length as a big-endian uint64, the SHA-256 (32 bytes); for a client that knows neither before it sends (a pipe). Then no other length or digest declaration is taken: Content-Length (if any) counts the footer, and the body is refused the moment it runs past the route's limit. A body without a valid footer is refused (reason footer_missing), as is one whose footer does not match its bytes (length_mismatch, digest_mismatch); nothing is stored.`,
  })),
});

/** Lets the routes of `server` (one plugin) take raw bodies as streams. */
export function acceptRawBodies(server: FastifyInstance): void {
  // Read without destroying: a reader that stops early (a refusal) leaves the stream to lingerOnUnreadBody, which
  // drains it so the connection can carry the next request. Destroying it would leave the rest of the body unread.
  server.addContentTypeParser(RAW_CONTENT_TYPE, (_request, payload, done) => done(null, { [Symbol.asyncIterator]: () => payload.iterator({ destroyOnReturn: false }) }));
  // The socket is taken while the answer still holds it: once the answer is sent, Node detaches it.
  server.addHook('onSend', async (request, reply) => {
    const socket = request.raw.socket ?? reply.raw.socket;
    // Only a connection has a rest to drain (fastify.inject, used by tests and tools, has a stand-in socket).
    if (!request.raw.complete && socket instanceof Socket) reply.raw.once('finish', () => lingerOnUnreadBody(request.raw, socket));
  });
}

/** How long the rest of a refused body is read and discarded before its connection is cut (nginx's lingering_timeout is 5 s). */
const LINGER_MS = 5000;

/**
 * A body refused part way (past a limit or its declaration) stops being read, and Node drains only bodies nobody
 * started reading: the rest would stay in front of the connection's next request, which then waited for the
 * keep-alive timeout (72 s). Once the refusal is sent, the connection is read again and the rest discarded, so a
 * client that sends it all keeps its connection; one that goes on longer than LINGER_MS has the connection cut. Not
 * `Connection: close`: closing with unread bytes makes the kernel reset the connection, and a client still sending
 * can lose the refusal itself (measured: the CLI then reported EPIPE instead of the server's error).
 */
function lingerOnUnreadBody(raw: FastifyRequest['raw'], socket: Socket): void {
  if (raw.complete || raw.destroyed || socket.destroyed) return;
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  cut.unref();
  const done = () => clearTimeout(cut);
  raw.once('end', done);
  socket.once('close', done);
  raw.resume();
}

const EMPTY: AsyncIterable<Uint8Array> = { async *[Symbol.asyncIterator]() {} };

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/**
 * Whether the body ends with a footer (decision 198), and the bound its bytes stream under.
 * @throws SvcError `invalid_request` for another footer scheme or a length declared beside one; `payload_too_large`
 * when a Content-Length already says the body is over `limit`.
 */
function footerOf(request: FastifyRequest, chunked: boolean, limit: number): { maxLength: number } | undefined {
  const scheme = header(request, FOOTER_HEADER);
  if (scheme === undefined) return undefined;
  if (scheme.trim().toLowerCase() !== FOOTER_SCHEME) {
    throw new SvcError('invalid_request', `${FOOTER_HEADER} takes one value: ${FOOTER_SCHEME}`, { details: { header: FOOTER_HEADER } });
  }
  if (header(request, LENGTH_HEADER) !== undefined) {
    throw new SvcError('invalid_request', `a body with ${FOOTER_HEADER} declares its length in the footer: send no ${LENGTH_HEADER} beside it`, {
      details: { header: FOOTER_HEADER, reason: 'length_declared_twice' },
    });
  }
  const whole = chunked ? undefined : Number(header(request, 'content-length'));
  if (whole !== undefined && whole - FOOTER_BYTES > limit) {
    throw new SvcError('payload_too_large', `the body declares ${whole - FOOTER_BYTES} bytes before its footer; this route takes at most ${limit}`, { details: { limit_bytes: limit } });
  }
  return { maxLength: limit };
}

/**
 * The request's body and what the client declared about it.
 * @throws SvcError `invalid_request` (no raw body, bad declaration), `payload_too_large` past `limit` — before a byte is read.
 */
export function declaredBodyOf(request: FastifyRequest, limit: number): DeclaredBody {
  // fastify skips the parser for an empty body without a Content-Type: an empty object, not a missing body.
  const empty = request.body === undefined && header(request, 'content-length') === '0';
  const source = empty ? EMPTY : (request.body as AsyncIterable<Uint8Array> | undefined);
  if (!source || typeof (source as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] !== 'function') {
    throw new SvcError('invalid_request', `send the bytes as the request body with Content-Type: ${RAW_CONTENT_TYPE}`, { details: { header: 'content-type' } });
  }
  // A chunked body declares its length in X-SVC-Content-Length (a Content-Length beside chunked coding is not one a
  // server may trust, RFC 9112 §6.3); its digest may follow the bytes as a trailer (decision 194).
  const chunked = header(request, 'transfer-encoding') !== undefined;
  const length = chunked ? header(request, LENGTH_HEADER) : header(request, 'content-length');
  const announced = (header(request, 'trailer') ?? '').split(',').some((name) => name.trim().toLowerCase() === DIGEST_HEADER);
  if (announced && !chunked) {
    // Also what a proxy that buffers and de-chunks request bodies (nginx does) hands on: the trailer is gone.
    throw new SvcError('invalid_request', 'the request announces an X-SVC-Content-SHA256 trailer but its body is not chunked (a proxy in between may have de-chunked it and dropped the trailer): send the digest as a header', {
      details: { header: 'trailer', reason: 'digest_missing' },
    });
  }
  const raw = request.raw;
  const trailingSha256 = announced ? () => raw.trailers[DIGEST_HEADER] : undefined;
  const footer = footerOf(request, chunked, limit);
  const body = declaredBody({ source, length, sha256: header(request, DIGEST_HEADER), trailingSha256, lengthHeader: chunked ? LENGTH_HEADER : 'content-length', footer });
  if (body.length !== undefined && body.length > limit) {
    throw new SvcError('payload_too_large', `the body declares ${body.length} bytes; this route takes at most ${limit}`, { details: { limit_bytes: limit } });
  }
  return body;
}
