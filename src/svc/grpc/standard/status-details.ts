/**
 * The standard gRPC rich-error form (`grpc-status-details-bin`: a serialised
 * `google.rpc.Status`) of an svc error, so tools that know the convention
 * (grpcurl -v, the status packages of every gRPC language) show the svc code
 * without knowing svc. `details` holds:
 *
 * 1. `google.rpc.ErrorInfo` — `reason` is the svc error code (one svc code, one
 *    reason: the gRPC status alone is shared by several codes), `domain` is
 *    `svc.v1`, `metadata` the ids and `retryable` of the body;
 * 2. `google.protobuf.Struct` — the spec's error body itself, as REST sends it.
 *
 * The svc-specific trailers (`svc-error-bin`, `svc-error-code`) stay as they
 * were; this is the same body in the form generic tooling reads.
 */
import protobuf from 'protobufjs';
import type { ErrorBody } from '../../errors.ts';

const ROOT = protobuf.Root.fromJSON({
  // Map fields (`keyType`) are valid protobufjs JSON though IField does not declare them.
  nested: {
    google: {
      nested: {
        rpc: {
          nested: {
            Status: { fields: { code: { type: 'int32', id: 1 }, message: { type: 'string', id: 2 }, details: { rule: 'repeated', type: 'google.protobuf.Any', id: 3 } } },
            ErrorInfo: { fields: { reason: { type: 'string', id: 1 }, domain: { type: 'string', id: 2 }, metadata: { keyType: 'string', type: 'string', id: 3 } as protobuf.IField } },
          },
        },
        protobuf: {
          nested: {
            Any: { fields: { type_url: { type: 'string', id: 1 }, value: { type: 'bytes', id: 2 } } },
          },
        },
      },
    },
  },
});
// Struct/Value/ListValue come from protobufjs' bundled well-known types.
ROOT.addJSON(protobuf.common.get('google/protobuf/struct.proto')!.nested!);

const Status = ROOT.lookupType('google.rpc.Status');
const ErrorInfo = ROOT.lookupType('google.rpc.ErrorInfo');
const StructType = ROOT.lookupType('google.protobuf.Struct');

/** Metadata key of the standard rich status. */
export const STATUS_DETAILS_KEY = 'grpc-status-details-bin';
export const ERROR_DOMAIN = 'svc.v1';


/** Any JSON value as a `google.protobuf.Value` object for protobufjs. */
function valueOf(v: unknown): Record<string, unknown> {
  if (v === null || v === undefined) return { nullValue: 0 };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(valueOf) } };
  return { structValue: structOf(v as Record<string, unknown>) };
}

function structOf(o: Record<string, unknown>): Record<string, unknown> {
  return { fields: Object.fromEntries(Object.entries(o).map(([k, v]) => [k, valueOf(v)])) };
}

/** The serialised `google.rpc.Status` for an error body and its gRPC status code. */
export function encodeStatusDetails(grpcCode: number, body: ErrorBody): Buffer {
  const e = body.error;
  const metadata: Record<string, string> = { retryable: String(e.retryable) };
  if (e.work_unit_id) metadata.work_unit_id = e.work_unit_id;
  if (e.policy_bundle_id) metadata.policy_bundle_id = e.policy_bundle_id;
  const info = ErrorInfo.encode(ErrorInfo.fromObject({ reason: e.code, domain: ERROR_DOMAIN, metadata })).finish();
  const struct = StructType.encode(StructType.fromObject(structOf(body as unknown as Record<string, unknown>))).finish();
  const status = Status.fromObject({
    code: grpcCode,
    message: e.message,
    details: [
      { type_url: 'type.googleapis.com/google.rpc.ErrorInfo', value: info },
      { type_url: 'type.googleapis.com/google.protobuf.Struct', value: struct },
    ],
  });
  return Buffer.from(Status.encode(status).finish());
}

/** Decoded rich status (clients and tests): code, message, the ErrorInfo and the error body. */
export function decodeStatusDetails(raw: Buffer): { code: number; message: string; reason: string; domain: string; metadata: Record<string, string>; body: ErrorBody } {
  const status = Status.toObject(Status.decode(raw), { defaults: true }) as { code: number; message: string; details: Array<{ type_url: string; value: Uint8Array }> };
  const infoAny = status.details.find((d) => d.type_url.endsWith('/google.rpc.ErrorInfo'));
  const structAny = status.details.find((d) => d.type_url.endsWith('/google.protobuf.Struct'));
  if (!infoAny || !structAny) throw new Error('status details lack ErrorInfo or the error body');
  const info = ErrorInfo.toObject(ErrorInfo.decode(infoAny.value), { defaults: true }) as { reason: string; domain: string; metadata: Record<string, string> };
  const body = StructType.toObject(StructType.decode(structAny.value)) as Record<string, unknown>;
  return { code: status.code, message: status.message, reason: info.reason, domain: info.domain, metadata: info.metadata, body: jsonOfStruct(body) as unknown as ErrorBody };
}

function jsonOfValue(v: Record<string, unknown>): unknown {
  if ('structValue' in v) return jsonOfStruct(v.structValue as Record<string, unknown>);
  if ('listValue' in v) return ((v.listValue as { values?: Array<Record<string, unknown>> }).values ?? []).map(jsonOfValue);
  if ('stringValue' in v) return v.stringValue;
  if ('numberValue' in v) return v.numberValue;
  if ('boolValue' in v) return v.boolValue;
  return null;
}

function jsonOfStruct(s: Record<string, unknown>): Record<string, unknown> {
  const fields = (s.fields ?? {}) as Record<string, Record<string, unknown>>;
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, jsonOfValue(v)]));
}
