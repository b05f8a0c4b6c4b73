/**
 * Sends rehydrated bytes: `application/octet-stream`, 200 for a whole object,
 * 206 with `Content-Range` for a range, `Content-Length` always, the object's
 * SHA-256 as a strong ETag. A failure after the headers were sent (a chunk
 * that turns out corrupt mid-stream) aborts the connection, so a client
 * never mistakes a truncated body for a complete one.
 */
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { contentRangeHeader } from '../exact-bytes/byte-range.ts';
import type { Rehydration } from '../exact-bytes/rehydrate.ts';

export function sendBytes(reply: FastifyReply, rehydration: Rehydration, sha256: string): FastifyReply {
  reply.type('application/octet-stream');
  reply.header('Content-Length', String(rehydration.contentLength));
  reply.header('ETag', `"${sha256}"`);
  reply.header('Accept-Ranges', 'bytes');
  if (rehydration.range) {
    reply.status(206);
    reply.header('Content-Range', contentRangeHeader(rehydration.range, rehydration.size));
  }
  return reply.send(Readable.from(rehydration.stream, { objectMode: false }));
}
