/**
 * Raw byte transfers for the CLI, both directions streamed (decision 112):
 *
 * - {@link uploadFile} sends a file as an `application/octet-stream` body to
 *   a raw byte route with its declared `Content-Length` and
 *   `X-SVC-Content-SHA256` (hashed in a first pass over the file, which the
 *   OS then serves from its page cache), reading the file into a few
 *   buffers reused for the whole transfer, each handed to the socket and
 *   read into again once written — no JSON, no base64, 4 MiB in flight.
 * - {@link uploadStream} sends a stream of unknown length (standard input)
 *   chunked, hashing it as it goes, and ends the body with a footer that
 *   declares its length and SHA-256 (decision 198): one pass, no spooling,
 *   and checked by the server before anything is stored — through proxies
 *   that drop HTTP trailers too.
 * - {@link downloadTo} writes a binary answer (rehydration) to a file or
 *   stdout as it arrives, with asynchronous writes; a file is written aside
 *   and renamed into place only when complete, so a broken-off or corrupt
 *   transfer never leaves a plausible-looking file. A whole object's bytes
 *   are checked against its ETag (the SHA-256) on the way.
 *
 * Both use node:http rather than fetch: no web-stream layer between the
 * socket and the file.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import type { ClientRequest, IncomingMessage } from 'node:http';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { FOOTER_SCHEME, encodeFooter } from '../exact-bytes/body-footer.ts';
import { ApiError } from './client.ts';

/**
 * node:http (and node:https) through `process.getBuiltinModule`, not `import`:
 * an ESM import of a builtin builds its namespace from every export, and
 * node:http's lazy `WebSocket`/`EventSource` getters then load undici (Node's
 * fetch), HTTP/2, zlib and worker_threads — ~50 ms of every CLI run's
 * start-up (0.24 → 0.18 s for a bare script importing both here), paid once
 * per file by `svc execute --file` and `svc manifest rehydrate`.
 */
const http = process.getBuiltinModule('node:http');

const READ_BUFFER = 1024 * 1024;
/** Blocks of an upload in flight between the file and the socket. */
const UPLOAD_SLOTS = 4;
/**
 * The output file's write buffer: socket reads (~64 KiB) queue up while a
 * write is on the thread pool and go out together as one writev, instead of
 * one write per socket read behind a 16 KiB default (decision 155).
 */
const WRITE_BUFFER = 4 * 1024 * 1024;

export interface Endpoint {
  baseUrl: string;
  apiKey: string | undefined;
}

/**
 * Reads `file` front to back into a few buffers allocated once and reused
 * (decision 191): `onBlock` gets each block and calls `release` when the
 * block's memory may be read into again (at once after hashing; after the
 * socket took it when uploading). A stream (`createReadStream`) would read
 * every block into fresh memory instead, and first touches of fresh pages
 * are page faults: on a virtualised host that doubled the CLI's CPU per
 * byte (0.39 vs 1.23 s to hash 444 MiB, measured).
 */
async function readBlocks(file: string, slots: number, onBlock: (block: Buffer, release: () => void) => void, signal?: AbortSignal): Promise<void> {
  const handle = await fs.open(file, 'r');
  try {
    const free: Buffer[] = Array.from({ length: slots }, () => Buffer.allocUnsafeSlow(READ_BUFFER));
    let waiting: (() => void) | undefined;
    const wake = () => {
      const resolve = waiting;
      waiting = undefined;
      resolve?.();
    };
    const release = (buffer: Buffer) => {
      free.push(buffer);
      wake();
    };
    // Stopped (the upload was refused or broke off): a block's write callback may never come.
    signal?.addEventListener('abort', wake, { once: true });
    for (;;) {
      while (free.length === 0 && !signal?.aborted) await new Promise<void>((resolve) => (waiting = resolve));
      if (signal?.aborted) return;
      const buffer = free.pop()!;
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      onBlock(buffer.subarray(0, bytesRead), () => release(buffer));
    }
  } finally {
    await handle.close();
  }
}

/** SHA-256 (hex) of a file, read in 1 MiB blocks into one reused buffer. */
export async function hashFile(file: string, onProgress?: (bytesRead: number) => void): Promise<string> {
  const hash = createHash('sha256');
  let read = 0;
  await readBlocks(file, 1, (block, release) => {
    hash.update(block);
    read += block.length;
    release();
    onProgress?.(read);
  });
  return hash.digest('hex');
}

/** Progress of an upload: first the hashing pass over the file, then the bytes sent. */
export type UploadProgress = (phase: 'hashing' | 'uploading', bytes: number) => void;

function send(endpoint: Endpoint, method: string, route: string, headers: Record<string, string | number>): ClientRequest {
  const url = new URL(`${endpoint.baseUrl}${route}`);
  const all: Record<string, string | number> = { ...headers };
  if (endpoint.apiKey) all['X-API-Key'] = endpoint.apiKey;
  // node:https (and TLS under it) only for an https URL.
  return (url.protocol === 'https:' ? process.getBuiltinModule('node:https') : http).request(url, { method, headers: all });
}

async function readAll(res: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of res) parts.push(p as Buffer);
  return Buffer.concat(parts);
}

/** The server's error body as an ApiError (or a short text one when it sent none). */
async function apiError(res: IncomingMessage): Promise<ApiError> {
  const text = (await readAll(res)).toString('utf8');
  try {
    return new ApiError(res.statusCode ?? 0, JSON.parse(text) as unknown);
  } catch {
    return new ApiError(res.statusCode ?? 0, { error: { code: 'http_error', message: text.slice(0, 500) } });
  }
}

/**
 * The JSON answer to the upload `req`, or the server's refusal as an ApiError. `stop` is called when the sender
 * must stop: the server refused (which can come before the whole body went out: a limit, a bad query) or the
 * connection broke.
 */
function uploadAnswer<T>(req: ClientRequest, stop: () => void): Promise<T> {
  let answered = false;
  return new Promise<T>((resolve, reject) => {
    req.on('response', (res) => {
      answered = true;
      if ((res.statusCode ?? 500) >= 400) {
        stop();
        // The request was cut off mid-body: its socket can carry nothing else, and left open it would
        // keep the CLI alive until the server's keep-alive timeout (72 s in Fastify) closes it.
        apiError(res)
          .then(reject, reject)
          .finally(() => req.destroy());
        return;
      }
      readAll(res).then((b) => resolve(JSON.parse(b.toString('utf8')) as T), reject);
    });
    // Writing into a connection the server already answered and closed fails; the answer is what counts.
    req.on('error', (err) => {
      stop();
      setImmediate(() => answered || reject(err));
    });
  });
}

/**
 * Uploads `file` as the raw body of `method route` and returns the JSON answer.
 * @throws ApiError with the server's error body when it refuses the upload.
 */
export async function uploadFile<T = unknown>(endpoint: Endpoint, method: string, route: string, file: string, onProgress?: UploadProgress): Promise<T> {
  const size = (await fs.stat(file)).size;
  const sha256 = await hashFile(file, (n) => onProgress?.('hashing', n));
  const req = send(endpoint, method, route, { 'Content-Type': 'application/octet-stream', 'Content-Length': size, 'X-SVC-Content-SHA256': sha256 });
  const stop = new AbortController();
  const answer = uploadAnswer<T>(req, () => stop.abort());
  let sent = 0;
  // Each block goes to the socket as it is; its buffer is read into again once the write callback says
  // the socket is done with it. UPLOAD_SLOTS blocks in flight bound the memory and are the backpressure.
  readBlocks(
    file,
    UPLOAD_SLOTS,
    (block, release) => {
      sent += block.length;
      req.write(block, () => release());
      onProgress?.('uploading', sent);
    },
    stop.signal,
  ).then(
    () => stop.signal.aborted || req.end(),
    // A read error fails the request, and with it the answer.
    (err: unknown) => req.destroy(err as Error),
  );
  return answer;
}

/** Resolves once `req` takes writes again, or has closed (a refusal or a broken connection: the caller checks which). */
function drained(req: ClientRequest): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.on('drain', done);
    req.on('close', done);
  });
}

/**
 * Uploads `input` (a stream whose length is not known before it ends: a pipe) as the footed raw body of
 * `method route` (decision 198) and returns the JSON answer.
 * @throws ApiError with the server's error body when it refuses the upload.
 */
export async function uploadStream<T = unknown>(endpoint: Endpoint, method: string, route: string, input: AsyncIterable<Uint8Array>, onProgress?: (bytesSent: number) => void): Promise<T> {
  const req = send(endpoint, method, route, { 'Content-Type': 'application/octet-stream', 'Transfer-Encoding': 'chunked', 'X-SVC-Content-Footer': FOOTER_SCHEME });
  const stop = new AbortController();
  const answer = uploadAnswer<T>(req, () => stop.abort());
  answer.catch(() => undefined); // awaited below; a refusal while still sending must not count as unhandled meanwhile
  const hash = createHash('sha256');
  let sent = 0;
  try {
    for await (const piece of input) {
      if (stop.signal.aborted) break;
      hash.update(piece);
      sent += piece.byteLength;
      onProgress?.(sent);
      // Backpressure: the pipe is read no faster than the socket takes it.
      if (!req.write(piece)) await drained(req);
    }
  } catch (err) {
    // The input failed: the body is cut off without its footer, which the server refuses; nothing is stored.
    req.destroy(err as Error);
    throw err;
  }
  if (!stop.signal.aborted) req.end(encodeFooter(sent, hash.digest('hex')));
  return answer;
}

export interface Downloaded {
  status: number;
  bytes: number;
  contentRange: string | null;
}

/**
 * Sends a JSON request and streams the binary answer into `out`: a file path
 * (written as `<out>.partial-…`, renamed when complete) or a writable stream
 * such as stdout (left open).
 * @throws ApiError on an error answer, or when the transfer breaks off, is short, or does not match the ETag.
 */
export async function downloadTo(endpoint: Endpoint, method: string, route: string, body: unknown, out: string | NodeJS.WritableStream): Promise<Downloaded> {
  const json = JSON.stringify(body ?? {});
  const req = send(endpoint, method, route, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(json) });
  const res = await new Promise<IncomingMessage>((resolve, reject) => {
    req.on('response', resolve);
    req.on('error', reject);
    req.end(json);
  });
  if ((res.statusCode ?? 500) >= 400) throw await apiError(res);
  const declared = Number(res.headers['content-length']);
  const etag = /^"([0-9a-f]{64})"$/.exec(String(res.headers.etag ?? ''))?.[1];
  // The ETag is the whole object's digest: checkable only when the whole object came.
  const hash = res.statusCode === 200 && etag ? createHash('sha256') : undefined;
  let bytes = 0;
  const meter = new Transform({
    transform(block: Buffer, _enc, done) {
      bytes += block.length;
      hash?.update(block);
      done(null, block);
    },
  });
  const broken = (why: string) => new ApiError(res.statusCode ?? 0, { error: { code: 'rehydration_failed', message: `the transfer ${why} after ${bytes} of ${declared} bytes; nothing was written${typeof out === 'string' ? ` to ${out}` : ''}` } });
  const temp = typeof out === 'string' ? path.join(path.dirname(out), `.${path.basename(out)}.partial-${randomBytes(4).toString('hex')}`) : undefined;
  try {
    if (temp) await pipeline(res, meter, createWriteStream(temp, { highWaterMark: WRITE_BUFFER }));
    else await pipeline(res, meter, out as NodeJS.WritableStream, { end: false });
    if (Number.isSafeInteger(declared) && bytes !== declared) throw broken('ended');
    if (hash && hash.digest('hex') !== etag) throw broken('did not match the object digest (ETag)');
  } catch (err) {
    if (temp) await fs.rm(temp, { force: true });
    if (err instanceof ApiError) throw err;
    throw broken('broke off');
  }
  if (temp) await fs.rename(temp, out as string);
  return { status: res.statusCode ?? 0, bytes, contentRange: (res.headers['content-range'] as string | undefined) ?? null };
}
