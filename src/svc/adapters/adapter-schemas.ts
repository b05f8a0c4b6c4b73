/**
 * Request bodies of `/v1/adapters/...`, defined once: the domain validates
 * with them, the REST routes publish them in OpenAPI, gRPC maps onto them.
 */
import { Type, type Static } from 'typebox';
import { BucketName, ObjectKey } from '../objects/object-schemas.ts';
import { MODES } from '../work-units/work-unit.ts';

const Tenant = Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._-]+$' }));
const Mode = Type.Optional(Type.Union(MODES.map((m) => Type.Literal(m))));
/** Table, stream and run names: path-like, no control characters. */
export const SubjectName = Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9][A-Za-z0-9._/-]*$' });
const Body64 = Type.String({ minLength: 1, description: 'Standard padded base64 of the file bytes.' });

export const TablePutRequest = Type.Object(
  { tenant: Tenant, table: SubjectName, bucket: BucketName, key: ObjectKey, body_base64: Body64, mode: Mode },
  { additionalProperties: false },
);
export type TablePutRequest = Static<typeof TablePutRequest>;

export const TableRefRequest = Type.Object({ tenant: Tenant, table: SubjectName }, { additionalProperties: false });
export type TableRefRequest = Static<typeof TableRefRequest>;

export const TenantOnlyRequest = Type.Object({ tenant: Tenant, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) }, { additionalProperties: false });
export type TenantOnlyRequest = Static<typeof TenantOnlyRequest>;
