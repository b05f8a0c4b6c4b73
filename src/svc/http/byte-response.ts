/**
 * Sends rehydrated bytes: `application/octet-stream`, 200 for a whole object,
 * 206 with `Content-Range` for a range, `Content-Length` always, the object's
 * SHA-256 as a strong ETag. A failure after the headers were sent (a chunk
 * that turns out corrupt mid-stream) aborts the connection, so a client
 * never mistakes a truncated body for a complete one.
 *
 * The first two pieces are read before the status is committed, so a chunk
 * that fails among them is answered with the error body.
 *
 * A rehydration whose pieces are borrowed (rehydrate.ts `borrow`: each piece
 * is valid only until the next is asked for) is written piece by piece, each
 * handed to the socket and flushed before the next is pulled — a Readable
 * would read ahead into its own buffer, past the piece still being written.
 * The reply is then written on the raw response (Fastify's onSend hooks do
 * not run; its onResponse hooks — logs, metrics, the request span — do).
 */
import type { ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { contentRangeHeader } from '../exact-bytes/byte-range.ts';
import type { Rehydration } from '../exact-bytes/rehydrate.ts';

export async function sendBytes(reply: FastifyReply, rehydration: Rehydration, sha256: string): Promise<FastifyReply> {
  // The first two pieces are pulled before any header is set, so a chunk that fails there is still
  // answered with the error body and its own status and headers (Fastify's error handler).
  const pieces = rehydration.stream[Symbol.asyncIterator]();
  const head: Uint8Array[] = [];
  for (let k = 0; k < 2; k++) {
    const next = await pieces.next();
    if (next.done) break;
    head.push(next.value);
  }
  reply.type('application/octet-stream');
  reply.header('Content-Length', String(rehydration.contentLength));
  reply.header('ETag', `"${sha256}"`);
  reply.header('Accept-Ranges', 'bytes');
  if (rehydration.range) {
    reply.status(206);
    reply.header('Content-Range', contentRangeHeader(rehydration.range, rehydration.size));
  }
  if (!rehydration.borrowed) return reply.send(Readable.from(headThenRest(head, pieces), { objectMode: false }));
  // Borrowed pieces (the first is never borrowed, so holding two is allowed): written on the raw response.
  reply.hijack();
  const res = reply.raw;
  res.writeHead(reply.statusCode, reply.getHeaders() as Record<string, string>);
  void writeEachFlushed(res, head, pieces);
  return reply;
}

async function* headThenRest(head: readonly Uint8Array[], rest: AsyncIterator<Uint8Array>): AsyncGenerator<Uint8Array> {
  try {
    yield* head;
    for (;;) {
      const next = await rest.next();
      if (next.done) return;
      yield next.value;
    }
  } finally {
    // A client that went away ends this generator early: end the source too (it stops its read-ahead).
    await rest.return?.();
  }
}

/** Resolves once the socket has taken `piece`; rejects when the write fails or the connection closes first. */
const flushed = (res: ServerResponse, piece: Uint8Array) =>
  new Promise<void>((resolve, reject) => {
    const closed = () => reject(new Error('the connection closed before the piece was written'));
    res.once('close', closed);
    res.write(piece, (err) => {
      res.off('close', closed);
      if (err) reject(err);
      else resolve();
    });
  });

/** Writes every piece and waits until the socket has taken it before pulling the next; aborts the connection on failure. */
async function writeEachFlushed(res: ServerResponse, head: readonly Uint8Array[], pieces: AsyncIterator<Uint8Array>): Promise<void> {
  try {
    for (const piece of head) await flushed(res, piece);
    for (;;) {
      const next = await pieces.next();
      if (next.done) break;
      await flushed(res, next.value);
    }
    res.end();
  } catch {
    // A chunk failed verification mid-stream (already quarantined and logged by the service), or the client
    // went away: the connection is cut, so a truncated body can never pass for a whole one.
    res.destroy();
    await pieces.return?.().catch(() => undefined);
  }
}
