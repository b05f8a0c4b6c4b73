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

const Sha256Hex = Type.String({ pattern: '^[0-9a-f]{64}$' });
const ManifestId = Type.String({ pattern: '^mf_[0-9a-z]{26}$' });

export const CheckpointPutRequest = Type.Object(
  {
    tenant: Tenant,
    run: SubjectName,
    step: Type.Optional(Type.Integer({ minimum: 0, maximum: 1e12 })),
    bucket: BucketName,
    key: ObjectKey,
    body_base64: Body64,
    mode: Mode,
  },
  { additionalProperties: false },
);
export type CheckpointPutRequest = Static<typeof CheckpointPutRequest>;

export const RunRefRequest = Type.Object({ tenant: Tenant, run: SubjectName }, { additionalProperties: false });
export type RunRefRequest = Static<typeof RunRefRequest>;

export const TrainingRunSubmitRequest = Type.Object(
  {
    tenant: Tenant,
    run: SubjectName,
    /** The byte manifests of the training data (any order): their sha256s enter the fingerprint. */
    dataset_manifests: Type.Array(ManifestId, { minItems: 1, maxItems: 1000, uniqueItems: true }),
    /** Hyper-parameters and everything else that shapes the run (canonical JSON enters the fingerprint). */
    config: Type.Record(Type.String({ maxLength: 256 }), Type.Unknown(), { maxProperties: 1000 }),
    /** sha256 of the training code (e.g. of the source archive or container image). */
    code_digest: Sha256Hex,
    /** The client's estimate of the run's cost, used when the recorded run carries none. */
    estimated_gpu_seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12 })),
  },
  { additionalProperties: false },
);
export type TrainingRunSubmitRequest = Static<typeof TrainingRunSubmitRequest>;

export const TrainingRunCompleteRequest = Type.Object(
  {
    tenant: Tenant,
    run_id: Type.String({ pattern: '^adr_[0-9a-z]{26}$' }),
    /** What the run produced (metrics, checkpoint manifest ids, …): answered to identical resubmissions. */
    result: Type.Record(Type.String({ maxLength: 256 }), Type.Unknown(), { maxProperties: 1000 }),
    /** Measured GPU seconds of the run (the basis of later "GPU seconds avoided" estimates). */
    gpu_seconds: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12 })),
  },
  { additionalProperties: false },
);
export type TrainingRunCompleteRequest = Static<typeof TrainingRunCompleteRequest>;
