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

/** Fills exactly `size` bytes with lines from `produce()` (written in place: no giant string). */
function fillLines(size: number, produce: () => string): Buffer {
  const out = Buffer.allocUnsafe(size + 4096);
  let length = 0;
  while (length < size) length += out.write(produce(), length, 'latin1');
  return out.subarray(0, size);
}

function logLike(size: number, seed: string): Buffer {
  const rnd = new SeededRandom(seed);
  let ms = Date.UTC(2025, 0, 1);
  let second = -1;
  let secondText = '';
  return fillLines(size, () => {
    ms += rnd.below(50);
    // toISOString once per second: it dominated generation time.
    if (Math.floor(ms / 1000) !== second) {
      second = Math.floor(ms / 1000);
      secondText = new Date(second * 1000).toISOString().slice(0, 19);
    }
    const millis = String(ms % 1000).padStart(3, '0');
    const ip = `10.${rnd.below(4)}.${rnd.below(256)}.${rnd.below(256)}`;
    return `${secondText}.${millis}Z ${rnd.pick(LEVELS)} ${ip} "${rnd.pick(METHODS)} ${rnd.pick(PATHS)}?id=${rnd.below(100000)} HTTP/1.1" ${rnd.pick(STATUSES)} ${rnd.below(20000)} ${rnd.below(900) + 1}ms req=${rnd.nextUint32().toString(16)}\n`;
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

/** Gzip members of log text, concatenated (a valid multi-member gzip file), cut at `size`. */
function compressed(size: number, seed: string): Buffer {
  const members: Buffer[] = [];
  const textPerMember = Math.min(4 * 1024 * 1024, Math.max(64 * 1024, size * 4));
  let length = 0;
  for (let k = 0; length < size; k++) {
    const member = gzipSync(logLike(textPerMember, `compressed:${seed}:${k}`), { level: 1 });
    members.push(member);
    length += member.length;
  }
  return Buffer.concat(members).subarray(0, size);
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
