import assert from 'node:assert/strict';
import { test } from 'node:test';
import canonicalize from 'canonicalize';
import { mulberry32 } from '../../test/helpers/prng.ts';
import { canonicalJson } from './canonical-json.ts';

const rng = mulberry32;

const STRINGS = ['', 'a', 'plain text', 'quote " and \\ backslash', 'line\nbreak\ttab', '\u0000\u001f\u007f', 'é ü ß 漢字', '😀 pair', '\u2028\u2029', 'key', 'Key', '10', '2', '__proto__', 'ü'];
const NUMBERS = [0, -0, 1, -1, 1.5, 1e21, 1e-7, 123456789012345680000, 0.1 + 0.2, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, -3.4e38];

function value(r: () => number, depth: number): unknown {
  const pick = r();
  if (depth > 4 || pick < 0.45) {
    const p = r();
    if (p < 0.35) return STRINGS[Math.floor(r() * STRINGS.length)]! + (r() < 0.3 ? String(Math.floor(r() * 1000)) : '');
    if (p < 0.7) return NUMBERS[Math.floor(r() * NUMBERS.length)]!;
    if (p < 0.8) return r() < 0.5;
    if (p < 0.9) return null;
    return r() < 0.5 ? undefined : () => 1;
  }
  if (pick < 0.7) return Array.from({ length: Math.floor(r() * 5) }, () => value(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 6); i > 0; i--) o[STRINGS[Math.floor(r() * STRINGS.length)]! + (r() < 0.5 ? String(i) : '')] = value(r, depth + 1);
  return o;
}

test('canonical JSON is byte-identical to the reference implementation on random JSON data', () => {
  for (let seed = 1; seed <= 3000; seed++) {
    const generated = value(rng(seed), 0);
    // At the top level a value with no JSON form is an error (checked below), not data.
    const v = generated === undefined || typeof generated === 'function' ? null : generated;
    assert.equal(canonicalJson(v), canonicalize(v), `seed ${seed}`);
  }
});

test('values outside plain JSON data get exactly what the reference gives, or its error', () => {
  const date = new Date(0);
  const withToJson = { toJSON: () => ({ b: 1, a: 2 }) };
  const arrayWithToJson = Object.assign([1, 2], { toJSON: () => 'replaced' });
  const boxed = { n: new Number(3), s: new String('x'), b: new Boolean(false) };
  const instance = new (class Point { y = 2; x = 1; })();
  const nullProto = Object.assign(Object.create(null) as object, { b: 1, a: [1, { d: 1, c: 2 }] });
  const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
  let deep: unknown = 'bottom';
  for (let i = 0; i < 20_000; i++) deep = [deep];
  for (const v of [date, withToJson, arrayWithToJson, boxed, instance, nullProto, sparse, deep, { m: new Map([[1, 2]]) }, 'x', 1.25, true]) {
    assert.equal(canonicalJson(v), canonicalize(v));
  }
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  for (const bad of [cyclic, { n: Number.NaN }, [Number.POSITIVE_INFINITY], { s: 'lone \ud800 surrogate' }]) {
    assert.throws(() => canonicalize(bad));
    assert.throws(() => canonicalJson(bad), (e: Error) => {
      assert.throws(() => canonicalize(bad), { message: e.message });
      return true;
    });
  }
  assert.throws(() => canonicalJson(undefined), TypeError);
});

test('keys are sorted by UTF-16 code units at every level, also for a shape seen before in another order', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [3, { z: 0, y: 1 }], c: 'é' }, '10': 0, '2': 0 }), '{"10":0,"2":0,"a":{"c":"é","d":[3,{"y":1,"z":0}]},"b":1}');
  assert.equal(canonicalJson({ a: 1, b: 2 }), canonicalJson({ b: 2, a: 1 }));
});
