/**
 * Canonical JSON (RFC 8785, JSON Canonicalization Scheme): sorted keys, no
 * insignificant white space, ECMAScript number formatting. Every hash the
 * project publishes (ledger events, bundle hashes, footers, audit entries) is
 * computed over this form so that two implementations agree byte for byte.
 *
 * Plain JSON data (what every caller passes) takes a fast path: sorted key
 * lists are remembered per object shape and strings that need no escaping
 * are quoted without `JSON.stringify` — 4–5× faster on ledger payloads and
 * cache keys, which are canonicalised on every AI request. Anything else (a
 * lone surrogate, a non-finite number, `toJSON`, a boxed primitive, a class
 * instance, a cycle, nesting deep enough to exhaust the stack) is handed to
 * the reference implementation (`canonicalize`), so the output — or the
 * error thrown — is always the reference's. canonical-json.test.ts holds the
 * two together.
 */
import canonicalizeImpl from 'canonicalize';

/** Thrown inside the fast path when a value needs the reference serializer. */
class NeedsReference extends Error {}

/** No character that JSON escapes and no surrogate half: the string can be quoted as is. */
const PLAIN_STRING = /^[^\u0000-\u001f"\\\ud800-\udfff]*$/;
/** At most this many trie nodes (one per key of a remembered shape, shared by shapes with a common start). */
const MAX_SHAPE_NODES = 4096;
const MAX_KEYS = 4096;
/** Longer keys and key lists are not remembered: the caches must stay small whatever the data. */
const MAX_CACHED_KEY_CHARS = 64;
const MAX_CACHED_SHAPE_KEYS = 64;
/** `"key":` per key name: object keys repeat across calls far more than values do. */
const quotedKeys = new Map<string, string>();

/**
 * Known object shapes as a trie over their keys in insertion order (what `Object.keys` returns): a node is
 * reached by following an object's keys one by one, and a node where a shape ends holds the keys in canonical
 * order with their quoted `"key":` prefixes. Following the trie costs one Map lookup per key on strings V8 has
 * already hashed (property names), where a joined-key id cost a new string, its hash and a comparison per call.
 */
interface ShapeNode {
  next: Map<string, ShapeNode> | undefined;
  /** Set when a remembered shape ends here. */
  sorted: string[] | undefined;
  quoted: string[] | undefined;
}
const shapeRoot: ShapeNode = { next: undefined, sorted: undefined, quoted: undefined };
let shapeNodes = 0;

function quote(s: string): string {
  if (PLAIN_STRING.test(s)) return `"${s}"`;
  if (!s.isWellFormed()) throw new NeedsReference();
  return JSON.stringify(s);
}

/** Keys in UTF-16 code-unit order (what `sort()` does and RFC 8785 requires). */
function sortKeys(keys: string[]): string[] {
  return keys.length < 2 ? keys : [...keys].sort();
}

/**
 * The shape of `keys` (an object's own keys in insertion order): its keys in canonical order and their
 * `"key":` prefixes, remembered while the trie has room. Undefined `quoted` when not remembered.
 */
function shapeOf(keys: string[]): { sorted: string[]; quoted: string[] | undefined } {
  let node: ShapeNode | undefined = shapeRoot;
  for (let i = 0; i < keys.length && node !== undefined; i++) node = node.next?.get(keys[i]!);
  if (node?.sorted !== undefined) return node as { sorted: string[]; quoted: string[] };
  const sorted = sortKeys(keys);
  if (shapeNodes + keys.length > MAX_SHAPE_NODES || keys.length > MAX_CACHED_SHAPE_KEYS || keys.some((k) => k.length > MAX_CACHED_KEY_CHARS)) return { sorted, quoted: undefined };
  const quoted = sorted.map(quotedKey);
  let at = shapeRoot;
  for (const k of keys) {
    at.next ??= new Map();
    let child = at.next.get(k);
    if (child === undefined) {
      child = { next: undefined, sorted: undefined, quoted: undefined };
      at.next.set(k, child);
      shapeNodes++;
    }
    at = child;
  }
  at.sorted = sorted;
  at.quoted = quoted;
  return at as { sorted: string[]; quoted: string[] };
}

/** Keys in canonical order, remembered per shape. */
function sortedKeys(o: object): string[] {
  return shapeOf(Object.keys(o)).sorted;
}

function quotedKey(k: string): string {
  let q = quotedKeys.get(k);
  if (q === undefined) {
    q = `${quote(k)}:`;
    if (quotedKeys.size < MAX_KEYS && k.length <= MAX_CACHED_KEY_CHARS) quotedKeys.set(k, q);
  }
  return q;
}

function omitted(v: unknown): boolean {
  return v === undefined || typeof v === 'function' || typeof v === 'symbol';
}

function write(v: unknown, known?: KnownCanonicalJson): string {
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
        if (Object.getPrototypeOf(v) !== Array.prototype || typeof (v as { toJSON?: unknown }).toJSON === 'function') throw new NeedsReference();
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) out += ',';
          const item: unknown = v[i];
          out += omitted(item) ? 'null' : write(item, known);
        }
        return `${out}]`;
      }
      const done = known?.get(v);
      if (done !== undefined) return done;
      const proto: unknown = Object.getPrototypeOf(v);
      if ((proto !== Object.prototype && proto !== null) || typeof (v as { toJSON?: unknown }).toJSON === 'function') throw new NeedsReference();
      const shape = shapeOf(Object.keys(v));
      const { sorted, quoted } = shape;
      let out = '{';
      let first = true;
      for (let i = 0; i < sorted.length; i++) {
        const k = sorted[i]!;
        const item = (v as Record<string, unknown>)[k];
        if (omitted(item)) continue;
        out += `${first ? '' : ','}${quoted !== undefined ? quoted[i]! : quotedKey(k)}${write(item, known)}`;
        first = false;
      }
      return `${out}}`;
    }
    default:
      // bigint and anything else: the reference decides (it throws for bigint).
      throw new NeedsReference();
  }
}

function reference(value: unknown): string {
  const text = canonicalizeImpl(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalized (undefined at the top level)');
  return text;
}

/** Canonical JSON already known for particular objects inside a value (see `canonicalJson`). */
export type KnownCanonicalJson = ReadonlyMap<object, string>;

/**
 * The RFC 8785 canonical JSON of `value`. `known` may supply the canonical
 * JSON of particular objects inside `value` that the caller has just
 * serialized (e.g. a footer's rows, serialized for their row hashes); it must
 * be exactly their canonical JSON.
 */
export function canonicalJson(value: unknown, known?: KnownCanonicalJson): string {
  if (omitted(value)) return reference(value);
  try {
    return write(value, known);
  } catch (err) {
    // NeedsReference, or a RangeError from a cycle or very deep nesting: the reference serializes or throws.
    if (err instanceof NeedsReference || err instanceof RangeError) return reference(value);
    throw err;
  }
}

/**
 * A plain object's canonical JSON cut around one key: `before` and `after`
 * are the members (`"key":value`, comma-separated) that sort before and
 * after `key`, and `own` is the member of `key` itself when present. So
 * `{before,own,after}` is the object's canonical JSON, `{before,after}` that
 * of the object without `key`, and a new member can go in `own`'s place
 * (how a record's hash is computed over the record without its hash field).
 */
export interface CanonicalCut {
  before: string;
  own: string | undefined;
  after: string;
}

/** `record` cut around `key`; undefined when it is not plain JSON data (use `canonicalJson` then). */
export function cutCanonical(record: object, key: string): CanonicalCut | undefined {
  try {
    const proto: unknown = Object.getPrototypeOf(record);
    if ((proto !== Object.prototype && proto !== null) || typeof (record as { toJSON?: unknown }).toJSON === 'function') return undefined;
    let before = '';
    let own: string | undefined;
    let after = '';
    for (const k of sortedKeys(record)) {
      const x: unknown = (record as Record<string, unknown>)[k];
      if (omitted(x)) continue;
      const member = quotedKey(k) + write(x);
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
