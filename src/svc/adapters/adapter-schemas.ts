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

const TimeField = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_@.-]+$' });

export const StreamAppendRequest = Type.Object(
  {
    tenant: Tenant,
    stream: SubjectName,
    bucket: BucketName,
    body_base64: Type.Optional(Body64),
    body_text: Type.Optional(Type.String({ minLength: 1, description: 'UTF-8 NDJSON. Exactly one of body_text and body_base64.' })),
    /** Record fields holding the time, tried in order (default ts, time, timestamp, @timestamp). */
    time_fields: Type.Optional(Type.Array(TimeField, { minItems: 1, maxItems: 8 })),
    mode: Mode,
  },
  { additionalProperties: false },
);
export type StreamAppendRequest = Static<typeof StreamAppendRequest>;

export const StreamReadRequest = Type.Object(
  {
    tenant: Tenant,
    stream: SubjectName,
    from: Type.Optional(Type.String({ format: 'date-time' })),
    to: Type.Optional(Type.String({ format: 'date-time' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
  },
  { additionalProperties: false },
);
export type StreamReadRequest = Static<typeof StreamReadRequest>;

export const StreamUnusedRequest = Type.Object(
  {
    tenant: Tenant,
    /** Only segments stored at least this many days ago (default 0: every segment never read). */
    older_than_days: Type.Optional(Type.Integer({ minimum: 0, maximum: 3650, default: 0 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  },
  { additionalProperties: false },
);
export type StreamUnusedRequest = Static<typeof StreamUnusedRequest>;
