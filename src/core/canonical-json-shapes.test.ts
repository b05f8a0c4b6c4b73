import { test } from 'node:test';
import assert from 'node:assert/strict';
import canonicalize from 'canonicalize';
import { canonicalJson, cutCanonical, joinCanonical } from './canonical-json.ts';
import { canonicalSha256, sha256Hex } from './hashing.ts';

/** The reference implementation (RFC 8785), the fast path's yardstick. */
function reference(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalized (undefined at the top level)');
  return text;
}

function sameAsReference(value: unknown): void {
  let expected: { ok: string } | { error: string };
  try {
    expected = { ok: reference(value) };
  } catch (e) {
    expected = { error: (e as Error).message };
  }
  if ('ok' in expected) assert.equal(canonicalJson(value), expected.ok);
  else assert.throws(() => canonicalJson(value), { message: expected.error });
}

test('plain JSON data serializes to exactly the reference bytes', () => {
  const values: unknown[] = [
    null, true, false, 0, -0, 1.5, 1e21, 1e-7, -123456789.125, '', 'plain', 'quote " and \\ backslash', 'tab\tnew\nline\u0001',
    'emoji 🐝 and accents é · — …', [], {}, [1, 'a', null, [2, [3]]], { b: 1, a: 2, A: 3, _: 4, aa: 5, 'a b': 6 },
    { '10': 'x', '9': 'y', '1a': 'z', é: 1, e: 2, '🐝': 3, '\u0000k': 4 }, { nested: { z: [{ y: 1, x: 2 }], a: { c: null } } },
    { skipped: undefined, kept: 1 }, [undefined, 1], Object.assign([1, 2], { extra: 3 }),
  ];
  for (const v of values) sameAsReference(v);
});

test('objects of one shape reuse the cached key order without mixing up shapes whose joined keys collide', () => {
  sameAsReference({ 'a\u0000b': 1, c: 2 });
  sameAsReference({ a: 1, 'b\u0000c': 2 });
  for (let i = 0; i < 3; i++) sameAsReference({ z: i, y: [i], x: { w: `${i}` } });
  sameAsReference({ y: 1, z: 2, x: 3 });
  // More shapes sharing a first key than are remembered, and shapes that differ only in length.
  for (let i = 0; i < 20; i++) sameAsReference(Object.fromEntries([['first', i], ...Array.from({ length: i }, (_, j) => [`k${(j * 7) % 13}${j}`, j])]));
  sameAsReference({ first: 1, b: 2 });
  sameAsReference({ first: 1, b: 2, a: 3 });
});

test('values outside plain JSON data get the reference output or the reference error', () => {
  const values: unknown[] = [
    'lone \ud800 surrogate', { 'key \udc00': 1 }, [Number.NaN], { n: Number.POSITIVE_INFINITY }, new Date(0), { d: new Date(0) },
    { toJSON: () => ({ b: 1, a: 2 }) }, new String('boxed'), [new Number(3)], { f: () => 1, a: 1 }, [() => 1], Object.create(null),
    { s: Symbol('x'), a: 1 },
  ];
  for (const v of values) sameAsReference(v);
});

test('nesting too deep for recursion still serializes like the reference', () => {
  let deep: unknown = 'leaf';
  for (let i = 0; i < 20_000; i++) deep = [deep];
  sameAsReference(deep);
});

test('the hash is the SHA-256 of the reference canonical JSON', () => {
  const value = { row: { label: 'S1', uri: 'https://example.org/a?b="c"', weight: '0.500000', support: 0.8125 }, list: ['x', 'y'] };
  assert.equal(canonicalSha256(value), sha256Hex(reference(value)));
});

test('known canonical JSON of inner objects is used as given', () => {
  const row = { b: 2, a: 1 };
  const value = { rows: [row, { c: 3 }], z: 'end' };
  assert.equal(canonicalJson(value, new Map([[row, reference(row)]])), reference(value));
  assert.equal(canonicalJson(value, new Map([[row, '"stand-in"']])), '{"rows":["stand-in",{"c":3}],"z":"end"}');
});

test('an object cut around a key rebuilds its canonical JSON with and without that key', () => {
  const objects: Array<Record<string, unknown>> = [
    { b: 1, row_hash: 'h', a: [1, { z: 2, y: 'é' }], rows: 'x', royalty: true, 'row_hash ': null },
    { only: 'before' }, { zz: 'after' }, { row_hash: 'alone' }, {}, { a: undefined, row_hasi: 1, row_hasj: 2 },
  ];
  for (const o of objects) {
    const cut = cutCanonical(o, 'row_hash');
    assert.ok(cut);
    assert.equal(joinCanonical(cut.before, cut.own, cut.after), reference(o));
    const { row_hash: _h, ...without } = o;
    assert.equal(joinCanonical(cut.before, cut.after), reference(without));
  }
  assert.equal(cutCanonical({ bad: 'lone \ud800' }, 'row_hash'), undefined);
  assert.equal(cutCanonical(new Date(0), 'row_hash'), undefined);
});
