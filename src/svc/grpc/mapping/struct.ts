/**
 * JSON ⇄ `google.protobuf.Struct` / `google.protobuf.Value`. The gRPC surface
 * carries rich or provider-specific JSON (AI requests, manifest documents,
 * ledger payloads, cached values) in these well-known types; this is the one
 * conversion, with JSON semantics: `undefined` object members are dropped,
 * non-finite numbers become null, objects with `toJSON` (dates) are
 * serialised through it.
 */
import type { ListValue__Output } from '../generated/google/protobuf/ListValue.ts';
import type { Struct, Struct__Output } from '../generated/google/protobuf/Struct.ts';
import type { Value, Value__Output } from '../generated/google/protobuf/Value.ts';

/** Sets an own enumerable property; a key named `__proto__` stays data, as with JSON.parse. */
function setOwn<T>(target: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** A JSON value as a protobuf `Value`. */
export function toValue(json: unknown): Value {
  if (json === null || json === undefined) return { nullValue: 'NULL_VALUE' };
  switch (typeof json) {
    case 'string':
      return { stringValue: json };
    case 'boolean':
      return { boolValue: json };
    case 'number':
      return Number.isFinite(json) ? { numberValue: json } : { nullValue: 'NULL_VALUE' };
    case 'bigint':
      return { numberValue: Number(json) };
    case 'object': {
      const withToJson = json as { toJSON?: () => unknown };
      if (typeof withToJson.toJSON === 'function') return toValue(withToJson.toJSON());
      if (Array.isArray(json)) return { listValue: { values: json.map((item) => toValue(item)) } };
      return { structValue: toStruct(json as Record<string, unknown>) };
    }
    default:
      // Functions and symbols have no JSON form (JSON.stringify drops them too).
      return { nullValue: 'NULL_VALUE' };
  }
}

/** A JSON object as a protobuf `Struct`. */
export function toStruct(object: Record<string, unknown>): Struct {
  const fields: Record<string, Value> = {};
  for (const [key, value] of Object.entries(object)) {
    if (value !== undefined && typeof value !== 'function' && typeof value !== 'symbol') setOwn(fields, key, toValue(value));
  }
  return { fields };
}

/** `toStruct` for an optional object: absent stays absent. */
export function toOptionalStruct(object: Record<string, unknown> | null | undefined): Struct | undefined {
  return object == null ? undefined : toStruct(object);
}

function fromList(list: ListValue__Output | undefined): unknown[] {
  return (list?.values ?? []).map((v) => fromValue(v));
}

/** A decoded protobuf `Value` as JSON. A `Value` with no kind set reads as null. */
export function fromValue(value: Value__Output | undefined): unknown {
  if (value === undefined) return null;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.numberValue !== undefined) return value.numberValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.structValue !== undefined) return fromStruct(value.structValue);
  if (value.listValue !== undefined) return fromList(value.listValue);
  return null;
}

/** A decoded protobuf `Struct` as a JSON object. */
export function fromStruct(struct: Struct__Output): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(struct.fields ?? {})) setOwn(out, key, fromValue(value));
  return out;
}

/** `fromStruct` for an optional field: a message field the client did not set stays `undefined`. */
export function fromOptionalStruct(struct: Struct__Output | undefined): Record<string, unknown> | undefined {
  return struct === undefined ? undefined : fromStruct(struct);
}

/** `fromValue` for an optional field: a message field the client did not set stays `undefined`. */
export function fromOptionalValue(value: Value__Output | undefined): unknown {
  return value === undefined ? undefined : fromValue(value);
}
