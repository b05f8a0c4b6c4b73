/**
 * Request bodies of the object gateway (`/v1/s3/...`, all POST, JSON), defined
 * once: the domain validates with them, the routes publish them in OpenAPI.
 * Objects are addressed by `bucket` and `key`; their logical reference is
 * `s3://<bucket>/<key>`.
 */
import { Type, type Static } from 'typebox';
import { MODES } from '../work-units/work-unit.ts';

/** S3 bucket naming: 3–63 characters, lowercase letters, digits, dots and hyphens, starting and ending alphanumeric. */
export const BucketName = Type.String({ pattern: '^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$', description: 'S3-style bucket name.' });
/** Any UTF-8 text without control characters, up to 1024 characters (S3's limit is 1024 bytes). */
export const ObjectKey = Type.String({ minLength: 1, maxLength: 1024, pattern: '^[^\\u0000-\\u001f\\u007f]+$' });
const Tenant = Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._-]+$' }));
const Mode = Type.Optional(Type.Union(MODES.map((m) => Type.Literal(m))));
const ContentType = Type.Optional(Type.String({ maxLength: 255, pattern: '^[\\x21-\\x7e][\\x20-\\x7e]*$' }));
const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });

export const PutObjectRequest = Type.Object(
  {
    tenant: Tenant,
    bucket: BucketName,
    key: ObjectKey,
    body_text: Type.Optional(Type.String({ description: 'UTF-8 text body. Exactly one of body_text and body_base64.' })),
    body_base64: Type.Optional(Type.String({ description: 'Standard padded base64 body. Exactly one of body_text and body_base64.' })),
    mode: Mode,
    content_type: ContentType,
  },
  { additionalProperties: false },
);
export type PutObjectRequest = Static<typeof PutObjectRequest>;

/**
 * Query string of `PUT /v1/s3/objects` (the raw byte put, decision 112): the
 * put's fields other than the body, which is the request body itself.
 */
export const RawPutObjectQuery = Type.Object(
  { tenant: Tenant, bucket: BucketName, key: ObjectKey, mode: Mode, content_type: ContentType },
  { additionalProperties: false },
);
export type RawPutObjectQuery = Static<typeof RawPutObjectQuery>;

export const ObjectRefRequest = Type.Object({ tenant: Tenant, bucket: BucketName, key: ObjectKey }, { additionalProperties: false });
export type ObjectRefRequest = Static<typeof ObjectRefRequest>;

/** Range read: `range` as in manifest rehydration (`{start, end?}` inclusive, or `{suffix}`). */
export const RangeObjectRequest = Type.Object(
  {
    tenant: Tenant,
    bucket: BucketName,
    key: ObjectKey,
    range: Type.Union([
      Type.Object({ start: Type.Integer(), end: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
      Type.Object({ suffix: Type.Integer() }, { additionalProperties: false }),
    ]),
  },
  { additionalProperties: false },
);
export type RangeObjectRequest = Static<typeof RangeObjectRequest>;

export const DEFAULT_MAX_KEYS = 1000;

export const ListObjectsRequest = Type.Object(
  {
    tenant: Tenant,
    bucket: BucketName,
    prefix: Type.Optional(Type.String({ maxLength: 1024 })),
    continuation_token: Type.Optional(Type.String({ maxLength: 2048 })),
    max_keys: Type.Optional(Type.Integer({ minimum: 1, maximum: DEFAULT_MAX_KEYS, default: DEFAULT_MAX_KEYS })),
    include_tombstoned: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type ListObjectsRequest = Static<typeof ListObjectsRequest>;

export const CreateMultipartRequest = Type.Object(
  { tenant: Tenant, bucket: BucketName, key: ObjectKey, mode: Mode, content_type: ContentType },
  { additionalProperties: false },
);
export type CreateMultipartRequest = Static<typeof CreateMultipartRequest>;

export const UploadPartRequest = Type.Object(
  {
    upload_id: Type.String({ pattern: '^up_[0-9a-z]{26}$' }),
    part_number: Type.Integer({ minimum: 1, maximum: 10_000 }),
    body_text: Type.Optional(Type.String()),
    body_base64: Type.Optional(Type.String()),
    /** Optional: the digest the client computed; a mismatch rejects the part. */
    sha256: Type.Optional(Sha256),
  },
  { additionalProperties: false },
);
export type UploadPartRequest = Static<typeof UploadPartRequest>;

/** Query string of `PUT /v1/s3/multipart/part` (raw part bytes as the body; S3's UploadPart). Query values are text. */
export const RawUploadPartQuery = Type.Object(
  {
    upload_id: Type.String({ pattern: '^up_[0-9a-z]{26}$' }),
    part_number: Type.String({ pattern: '^[1-9][0-9]{0,4}$', description: '1–10,000 (decimal).' }),
  },
  { additionalProperties: false },
);
export type RawUploadPartQuery = Static<typeof RawUploadPartQuery>;

export const CompleteMultipartRequest = Type.Object(
  {
    upload_id: Type.String({ pattern: '^up_[0-9a-z]{26}$' }),
    /** The parts that make the object, in ascending part number, each with the digest the server returned for it. */
    parts: Type.Array(Type.Object({ part_number: Type.Integer({ minimum: 1, maximum: 10_000 }), sha256: Sha256 }, { additionalProperties: false }), { minItems: 1, maxItems: 10_000 }),
  },
  { additionalProperties: false },
);
export type CompleteMultipartRequest = Static<typeof CompleteMultipartRequest>;

export const AbortMultipartRequest = Type.Object({ upload_id: Type.String({ pattern: '^up_[0-9a-z]{26}$' }) }, { additionalProperties: false });
export type AbortMultipartRequest = Static<typeof AbortMultipartRequest>;

/** `s3://bucket/key`: the logical reference of an object. */
export function objectLogicalRef(bucket: string, key: string): string {
  return `s3://${bucket}/${key}`;
}

/** Longest policy namespace (PlanOptions.namespace). */
const NAMESPACE_MAX = 256;

/**
 * The policy namespace of an object operation: `<bucket>/<key>`, cut to 256
 * characters, so policies can match buckets and key prefixes
 * (`namespace: { prefix: "scratch/" }`).
 */
export function objectNamespace(bucket: string, key: string): string {
  return `${bucket}/${key}`.slice(0, NAMESPACE_MAX);
}
