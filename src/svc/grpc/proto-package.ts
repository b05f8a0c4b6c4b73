/**
 * Loads `proto/svc/v1/svc.proto` — the one protobuf definition of svc — at
 * run time (no code generation for the wire; the TypeScript types under
 * `generated/` come from the same file and the same options, see
 * `proto/generate-types.ts`).
 *
 * The options make decoded messages look like the REST JSON: field names
 * kept in snake_case, 64-bit integers as numbers, enums as their names, and
 * no defaults filled in, so a field the client did not send is `undefined`
 * (the domain then applies its own default or reports it missing).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import type { ProtoGrpcType } from './generated/svc.ts';

/** Directory holding the `.proto` tree (import root). */
export const PROTO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../proto');

/** The svc protobuf file, relative to {@link PROTO_ROOT}. */
export const SVC_PROTO_FILE = 'svc/v1/svc.proto';

/**
 * proto-loader options. `proto/generate-types.ts` derives the generator's
 * flags from this object, so the generated types describe exactly what the
 * loader produces.
 */
export const LOADER_OPTIONS = {
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  arrays: false,
  objects: false,
  oneofs: false,
  includeDirs: [PROTO_ROOT],
} as const satisfies protoLoader.Options;

let cached: ProtoGrpcType | undefined;

/** The `svc.v1` package (service definitions and message types), loaded once per process. */
export function loadSvcPackage(): ProtoGrpcType {
  cached ??= grpc.loadPackageDefinition(protoLoader.loadSync(SVC_PROTO_FILE, LOADER_OPTIONS)) as unknown as ProtoGrpcType;
  return cached;
}
