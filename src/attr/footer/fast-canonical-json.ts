/**
 * A faster route to the same bytes as `canonicalJson` (src/core/canonical-json.ts,
 * RFC 8785) for the plain JSON data the attribution footer hashes: row
 * hashes, footer hashes, event hashes and handles are computed several times
 * per response, and the general-purpose serializer was the single largest
 * cost of `attribute()` and of the verifier.
 *
 * What makes it faster: sorted key lists are remembered per object shape
 * (the rows of one footer all share a shape), quoted keys are remembered,
 * and strings that need no escaping are quoted without `JSON.stringify`.
 *
 * Exactness: anything outside plain JSON data (a lone surrogate, a
 * non-finite number, `toJSON`, a function, a boxed primitive, a class
 * instance, nesting deep enough to exhaust the stack) abandons the fast path
 * and the reference implementation serializes the value instead, so the
 * output, or the error thrown, is always the reference's.
 */
import { hash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.ts';

/** Thrown inside the fast path when a value needs the reference serializer. */
class NeedsReference extends Error {}

/** No character that JSON escapes and no surrogate: the string can be quoted as is. */
const PLAIN_STRING = /^[^\u0000-\u001f"\\\ud800-\udfff]*$/;
const MAX_CACHED_SHAPES = 256;
const MAX_CACHED_KEYS = 1024;

interface Shape {
  /** The keys in insertion order, to rule out a join collision. */
  keys: string[];
  sorted: string[];
}
const shapes = new Map<string, Shape>();
const quotedKeys = new Map<string, string>();

function quote(s: string): string {
  if (PLAIN_STRING.test(s)) return `"${s}"`;
  if (!s.isWellFormed()) throw new NeedsReference();
  return JSON.stringify(s);
}

function quotedKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = `${quote(k)}:`;
    if (quotedKeys.size < MAX_CACHED_KEYS) quotedKeys.set(k, q);
  }
  return q;
}

/** Keys in UTF-16 code-unit order (what `sort()` does and RFC 8785 requires). */
function sortedKeys(o: object): string[] {
  const keys = Object.keys(o);
  const id = keys.join('\u0000');
  const cached = shapes.get(id);
  if (cached !== undefined && cached.keys.length === keys.length && cached.keys.every((k, i) => k === keys[i])) return cached.sorted;
  const sorted = [...keys].sort();
  if (shapes.size < MAX_CACHED_SHAPES) shapes.set(id, { keys, sorted });
  return sorted;
}

function skipped(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

function write(v: unknown): string {
  switch (typeof v) {
    case 'string':
      return quote(v);
    case 'number':
      if (!Number.isFinite(v)) throw new NeedsReference();
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'object': {
      if (v === null) return 'null';
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ',';
          const x: unknown = v[i];
          if (typeof x === 'function' || typeof x === 'symbol') throw new NeedsReference();
          out += x === undefined ? 'null' : write(x);
        }
        return `${out}]`;
      }
      if (Object.getPrototypeOf(v) !== Object.prototype || typeof (v as { toJSON?: unknown }).toJSON === 'function') throw new NeedsReference();
      let out = '{';
      let first = true;
      for (const k of sortedKeys(v)) {
        const x: unknown = (v as Record<string, unknown>)[k];
        if (skipped(x)) {
          if (x !== undefined) throw new NeedsReference();
          continue;
        }
        if (!first) out += ',';
        first = false;
        out += quotedKey(k) + write(x);
      }
      return `${out}}`;
    }
    default:
      throw new NeedsReference();
  }
}

/** Byte-for-byte `canonicalJson(value)`, faster for plain JSON data. */
export function fastCanonicalJson(value: unknown): string {
  try {
    return write(value);
  } catch {
    // Not plain JSON data (or too deep for recursion): the reference decides, output or error.
    return canonicalJson(value);
  }
}

/**
 * SHA-256 (hex) of the UTF-8 text, as `sha256Hex` in src/core/hashing.ts, through the one-shot
 * `crypto.hash` (no Hash object per call: a response hashes a few hundred short texts).
 */
export function sha256HexOneShot(text: string): string {
  return hash('sha256', text, 'hex');
}

/** SHA-256 (hex) of the canonical JSON of `value`; same result as `canonicalSha256` in src/core/hashing.ts. */
export function fastCanonicalSha256(value: unknown): string {
  return sha256HexOneShot(fastCanonicalJson(value));
}
