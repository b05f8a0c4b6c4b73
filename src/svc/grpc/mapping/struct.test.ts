import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadSvcPackage } from '../proto-package.ts';
import { fromOptionalStruct, fromOptionalValue, fromStruct, fromValue, toStruct, toValue } from './struct.ts';

/** Through the wire: encoded and decoded by the same loader the server uses. */
function overTheWire(doc: Record<string, unknown>): Record<string, unknown> {
  const Struct = loadSvcPackage().google.protobuf.Struct;
  return fromStruct(Struct.deserialize(Struct.serialize(toStruct(doc))));
}

describe('JSON ⇄ google.protobuf.Struct', () => {
  test('a nested JSON document survives the round trip unchanged', () => {
    const doc = { s: 'text', n: -1.5, i: 42, t: true, f: false, z: null, list: [1, 'two', [3], { four: 4 }], nested: { empty: {}, none: [] } };
    assert.deepEqual(overTheWire(doc), doc);
  });

  test('undefined members are dropped and non-finite numbers become null, as in JSON.stringify', () => {
    const out = overTheWire({ keep: 1, drop: undefined, inf: Number.POSITIVE_INFINITY, nan: Number.NaN });
    assert.deepEqual(out, JSON.parse(JSON.stringify({ keep: 1, drop: undefined, inf: Number.POSITIVE_INFINITY, nan: Number.NaN })));
  });

  test('dates are serialised through toJSON', () => {
    const at = new Date('2026-01-02T03:04:05.000Z');
    assert.deepEqual(toValue(at), { stringValue: '2026-01-02T03:04:05.000Z' });
  });

  test('a key named __proto__ stays an own data property and does not change the prototype', () => {
    const decoded = fromStruct({ fields: { ['__proto__']: { structValue: { fields: { polluted: { boolValue: true } } } } } });
    assert.equal(Object.getPrototypeOf(decoded), Object.prototype);
    assert.deepEqual(Object.keys(decoded), ['__proto__']);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('a Value with no kind reads as null; absent optional fields stay undefined', () => {
    assert.equal(fromValue({}), null);
    assert.equal(fromOptionalValue(undefined), undefined);
    assert.equal(fromOptionalStruct(undefined), undefined);
    assert.deepEqual(fromOptionalStruct({}), {});
  });
});
