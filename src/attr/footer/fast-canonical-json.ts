/**
 * A faster route to the same bytes as `canonicalJson` (src/core/canonical-json.ts,
 * RFC 8785) for the plain JSON data the attribution footer hashes: row
 * hashes, footer hashes, event hashes and handles are computed several times
 * per response, and the general-purpose serializer was the single largest
 * cost of `attribute()` and of the verifier.
 *
 * What makes it faster: sorted and quoted key lists are remembered per
 * object shape (the rows of one footer all share a shape).
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

const MAX_SHAPES_PER_FIRST_KEY = 8;
const MAX_FIRST_KEYS = 256;

interface Shape {
  /** The keys in insertion order (what `Object.keys` gives for objects of this shape). */
  keys: string[];
  /** The keys in UTF-16 code-unit order (what `sort()` does and RFC 8785 requires)... */
  sorted: string[];
  /** ...each already quoted and followed by a colon. */
  prefixes: string[];
}
/** Shapes seen, by their first key: objects built by one literal share a key list. */
const shapes = new Map<string, Shape[]>();

/**
 * A JSON string literal, as RFC 8785 writes it. `JSON.stringify` escapes a
 * lone surrogate where the reference throws: a string that needed no
 * escaping at all (literal two characters longer) cannot hold one.
 */
function quote(s: string): string {
  const q = JSON.stringify(s);
  if (q.length !== s.length + 2 && !s.isWellFormed()) throw new NeedsReference();
  return q;
}

function shapeOf(o: object): Shape {
  const keys = Object.keys(o);
  const first = keys.length === 0 ? '' : keys[0]!;
  let known = shapes.get(first);
  if (known !== undefined) {
    for (const shape of known) {
      if (shape.keys.length !== keys.length) continue;
      let same = true;
      for (let i = 0; i < keys.length && same; i++) same = shape.keys[i] === keys[i];
      if (same) return shape;
    }
  }
  const sorted = [...keys].sort();
  const shape = { keys, sorted, prefixes: sorted.map((k) => `${quote(k)}:`) };
  if (known === undefined && shapes.size < MAX_FIRST_KEYS) shapes.set(first, (known = []));
  if (known !== undefined && known.length < MAX_SHAPES_PER_FIRST_KEY) known.push(shape);
  return shape;
}

/** Canonical JSON already known for particular objects (see `fastCanonicalJson`). */
export type KnownCanonicalJson = ReadonlyMap<object, string>;

function write(v: unknown, known: KnownCanonicalJson | undefined): string {
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
      if (Array.isArray(v)) return writeArray(v, known);
      const done = known?.get(v);
      if (done !== undefined) return done;
      if (Object.getPrototypeOf(v) !== Object.prototype || typeof (v as { toJSON?: unknown }).toJSON === 'function') throw new NeedsReference();
      const { sorted, prefixes } = shapeOf(v);
      let out = '{';
      let first = true;
      for (let i = 0; i < sorted.length; i++) {
        const x: unknown = (v as Record<string, unknown>)[sorted[i]!];
        if (x === undefined) continue;
        if (typeof x === 'function' || typeof x === 'symbol') throw new NeedsReference();
        if (!first) out += ',';
        first = false;
        out += prefixes[i]! + write(x, known);
      }
      return `${out}}`;
    }
    default:
      throw new NeedsReference();
  }
}

function writeArray(v: unknown[], known: KnownCanonicalJson | undefined): string {
  let out = '[';
  for (let i = 0; i < v.length; i++) {
    if (i > 0) out += ',';
    const x: unknown = v[i];
    if (typeof x === 'function' || typeof x === 'symbol') throw new NeedsReference();
    out += x === undefined ? 'null' : write(x, known);
  }
  return `${out}]`;
}

/**
 * Byte-for-byte `canonicalJson(value)`, faster for plain JSON data.
 * `known` supplies the canonical JSON of particular objects inside `value`
 * that the caller has just serialized (a footer's rows, serialized for
 * their row hashes); it must be exactly their canonical JSON.
 */
export function fastCanonicalJson(value: unknown, known?: KnownCanonicalJson): string {
  try {
    return write(value, known);
  } catch {
    // Not plain JSON data (or too deep for recursion): the reference decides, output or error.
    return canonicalJson(value);
  }
}

/**
 * A plain object's canonical JSON cut around one key: `before` and `after`
 * are the members (`"key":value`, comma-separated) that sort before and
 * after `key`, and `own` is the member of `key` itself when present. So
 * `{before,own,after}` is the object's canonical JSON, `{before,after}` that
 * of the object without `key`, and a new member can go in `own`'s place.
 */
export interface CanonicalCut {
  before: string;
  own: string | undefined;
  after: string;
}

/** `record` cut around `key`; undefined when it is not plain JSON data (use the reference then). */
export function cutCanonical(record: object, key: string): CanonicalCut | undefined {
  try {
    if (Object.getPrototypeOf(record) !== Object.prototype || typeof (record as { toJSON?: unknown }).toJSON === 'function') return undefined;
    const { sorted, prefixes } = shapeOf(record);
    let before = '';
    let own: string | undefined;
    let after = '';
    for (let i = 0; i < sorted.length; i++) {
      const k = sorted[i]!;
      const x: unknown = (record as Record<string, unknown>)[k];
      if (x === undefined) continue;
      if (typeof x === 'function' || typeof x === 'symbol') return undefined;
      const member = prefixes[i]! + write(x, undefined);
      if (k === key) own = member;
      else if (k < key) before += (before === '' ? '' : ',') + member; // canonical order: UTF-16 code units, as `<` compares
      else after += (after === '' ? '' : ',') + member;
    }
    return { before, own, after };
  } catch {
    return undefined;
  }
}

/** Canonical JSON of an object from members in canonical order (empty or undefined ones skipped). */
export function joinCanonical(first: string, second: string | undefined, third = ''): string {
  let out = `{${first}`;
  if (second !== undefined && second !== '') out += (out.length > 1 ? ',' : '') + second;
  if (third !== '') out += (out.length > 1 ? ',' : '') + third;
  return `${out}}`;
}

/**
 * SHA-256 (hex) of the UTF-8 text, as `sha256Hex` in src/core/hashing.ts, through the one-shot
 * `crypto.hash` (no Hash object per call: a response hashes a few hundred short texts).
 */
export function sha256HexOneShot(text: string): string {
  return hash('sha256', text, 'hex');
}

/** SHA-256 (hex) of the canonical JSON of `value`; same result as `canonicalSha256` in src/core/hashing.ts. */
export function fastCanonicalSha256(value: unknown, known?: KnownCanonicalJson): string {
  return sha256HexOneShot(fastCanonicalJson(value, known));
}
