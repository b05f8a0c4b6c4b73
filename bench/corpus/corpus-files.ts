/**
 * The object-exact-v1 corpus: one generator per kind of data the exact-bytes
 * path must handle well. Every generator is a pure function of (size, seed).
 *
 * - random: incompressible, no internal repetition (worst case for both dedupe and zstd);
 * - repeated: one 1 MiB block over and over (dedupe within an object);
 * - log-like: access-log lines (compressible, mildly repetitive);
 * - json: an array of records (compressible);
 * - compressed: gzip of log lines (already compressed: must be stored raw, cheaply);
 * - encrypted-like: ciphertext behind an `age` header (high entropy);
 * - shifted: a random file with one byte inserted in the middle (boundary resynchronisation).
 */
import { gzipSync } from 'node:zlib';
import { keystreamBytes, SeededRandom } from './deterministic-bytes.ts';

export const CORPUS_KINDS = ['random', 'repeated', 'log-like', 'json', 'compressed', 'encrypted-like'] as const;
export type CorpusKind = (typeof CORPUS_KINDS)[number];

const PATHS = ['/api/v1/orders', '/api/v1/users', '/api/v1/search', '/static/app.js', '/healthz', '/api/v1/cart', '/login'];
const METHODS = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE'];
const STATUSES = [200, 200, 200, 200, 201, 204, 301, 404, 500];
const LEVELS = ['INFO', 'INFO', 'INFO', 'WARN', 'ERROR', 'DEBUG'];
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

/** Fills `size` bytes by repeating `produce()` output (text generators). */
function fillText(size: number, produce: () => string): Buffer {
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const line = produce();
    parts.push(line);
    length += line.length;
  }
  return Buffer.from(parts.join(''), 'latin1').subarray(0, size);
}

function logLike(size: number, seed: string): Buffer {
  const rnd = new SeededRandom(seed);
  let ms = Date.UTC(2025, 0, 1);
  return fillText(size, () => {
    ms += rnd.below(50);
    const ip = `10.${rnd.below(4)}.${rnd.below(256)}.${rnd.below(256)}`;
    return `${new Date(ms).toISOString()} ${rnd.pick(LEVELS)} ${ip} "${rnd.pick(METHODS)} ${rnd.pick(PATHS)}?id=${rnd.below(100000)} HTTP/1.1" ${rnd.pick(STATUSES)} ${rnd.below(20000)} ${rnd.below(900) + 1}ms req=${rnd.nextUint32().toString(16)}\n`;
  });
}

/** A valid JSON array of records, about `size` bytes (whole records only). */
function json(size: number, seed: string): Buffer {
  const rnd = new SeededRandom(seed);
  const parts: string[] = ['['];
  let length = 2;
  for (let id = 1; length < size; id++) {
    const record = JSON.stringify({
      id,
      name: `${rnd.pick(WORDS)}-${rnd.pick(WORDS)}`,
      active: rnd.below(2) === 1,
      score: rnd.below(100000) / 100,
      tags: [rnd.pick(WORDS), rnd.pick(WORDS)],
      owner: { team: rnd.pick(WORDS), region: rnd.pick(['eu-west', 'us-east', 'ap-south']) },
    });
    const item = `${id === 1 ? '' : ','}${record}\n`;
    parts.push(item);
    length += item.length;
  }
  parts.push(']');
  return Buffer.from(parts.join(''), 'utf8');
}

function repeated(size: number, seed: string): Buffer {
  const block = keystreamBytes(`repeated:${seed}`, 1024 * 1024);
  const out = Buffer.alloc(size);
  for (let offset = 0; offset < size; offset += block.length) block.copy(out, offset, 0, Math.min(block.length, size - offset));
  return out;
}

function compressed(size: number, seed: string): Buffer {
  // Log text compresses ~10×; generate enough to fill `size` once gzipped.
  const gz = gzipSync(logLike(size * 12, `compressed:${seed}`), { level: 6 });
  return gz.length >= size ? gz.subarray(0, size) : Buffer.concat([gz, keystreamBytes(`pad:${seed}`, size - gz.length)]);
}

function encryptedLike(size: number, seed: string): Buffer {
  const header = Buffer.from('age-encryption.org/v1\n-> X25519 benchmark\n--- 0000\n', 'latin1');
  return Buffer.concat([header, keystreamBytes(`encrypted:${seed}`, Math.max(0, size - header.length))]).subarray(0, size);
}

/** `size` bytes of the given kind (JSON: whole records, so slightly more). */
export function corpusFile(kind: CorpusKind, size: number, seed = 'object-exact-v1'): Buffer {
  switch (kind) {
    case 'random':
      return keystreamBytes(`random:${seed}`, size);
    case 'repeated':
      return repeated(size, seed);
    case 'log-like':
      return logLike(size, seed);
    case 'json':
      return json(size, seed);
    case 'compressed':
      return compressed(size, seed);
    case 'encrypted-like':
      return encryptedLike(size, seed);
  }
}

/** `original` with one byte inserted at `position` (default: the middle). */
export function withInsertedByte(original: Uint8Array, position = Math.floor(original.length / 2), value = 0x42): Buffer {
  return Buffer.concat([original.subarray(0, position), Uint8Array.of(value), original.subarray(position)]);
}
