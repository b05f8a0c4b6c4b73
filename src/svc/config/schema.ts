/**
 * The svc configuration, defined once. The YAML file written by `svc init`
 * and the `SVC_*` environment variables are merged into this shape and
 * validated at start; unknown keys are rejected with their path.
 * Secrets (API keys, provider keys) never live here: only env vars, or the
 * *names* of env vars.
 */
import { Type, type Static } from 'typebox';
import { RolloutConfig } from '../rollout/canary.ts';
import { GuardrailConfig } from '../rollout/slo-guardrail.ts';
import { ReportsConfig } from '../reports/estimate-constants.ts';
import { SchedulerConfig } from '../scheduler/scheduler-config.ts';

export const ServerConfig = Type.Object(
  {
    host: Type.String({ default: '127.0.0.1' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8080 }),
    /** Largest JSON request body accepted; larger objects go through multipart upload. */
    body_limit_bytes: Type.Integer({ minimum: 1024, maximum: 256 * 1024 * 1024, default: 16 * 1024 * 1024 }),
    /**
     * Largest raw `application/octet-stream` body (the raw byte routes: object put, inline execute; decision 112).
     * Streamed, never buffered, so it is large by default (64 GiB); parts are held to `multipart.max_part_bytes`.
     */
    raw_body_limit_bytes: Type.Integer({ minimum: 1, default: 64 * 1024 * 1024 * 1024 }),
    /** Grace period for in-flight requests on SIGTERM. */
    shutdown_grace_ms: Type.Integer({ minimum: 0, default: 10_000 }),
  },
  { additionalProperties: false },
);

/** The gRPC server started by `svc serve` next to HTTP (docs/grpc.md). */
export const GrpcConfig = Type.Object(
  {
    enabled: Type.Boolean({ default: true }),
    host: Type.String({ default: '127.0.0.1' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 9090 }),
  },
  { additionalProperties: false },
);

/**
 * S3-compatible chunk storage, used when `storage.chunk_backend` is `s3`
 * (docs/chunking.md, docs/decisions/031-s3-chunk-store.md). Credentials are
 * never configured here: the standard AWS environment variables or the SDK's
 * default provider chain.
 */
export const S3ChunkStorageConfig = Type.Object(
  {
    /** Required when `storage.chunk_backend` is `s3` (checked by the loader, naming the key). */
    bucket: Type.Optional(Type.String({ minLength: 3, maxLength: 63 })),
    /** Key prefix the scopes live under; surrounding slashes are ignored, empty means the bucket root. */
    prefix: Type.String({ default: 'chunks' }),
    region: Type.String({ minLength: 1, default: 'us-east-1' }),
    /** Endpoint of a non-AWS server (MinIO, Ceph RGW, R2, …), e.g. `https://minio.internal:9000`; absent: AWS S3. */
    endpoint: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
    /** `endpoint/bucket/key` URLs instead of virtual-host buckets; most self-hosted servers need true. */
    force_path_style: Type.Boolean({ default: false }),
  },
  { additionalProperties: false },
);

export const StorageConfig = Type.Object(
  {
    /** Absent → SQLite in the state dir; postgres://… → PostgreSQL; sqlite:<path> → SQLite there. */
    database_url: Type.Optional(Type.String({ minLength: 1 })),
    /** Where chunks live: a local (or mounted) directory, or an S3-compatible bucket (`storage.s3`). */
    chunk_backend: Type.Union([Type.Literal('filesystem'), Type.Literal('s3')], { default: 'filesystem' }),
    /** SQLite only: `full` (default) fsyncs every commit; `normal` survives process crashes but may lose the last commits on power loss. */
    sqlite_synchronous: Type.Union([Type.Literal('full'), Type.Literal('normal')], { default: 'full' }),
    /** Where content-addressed chunks live with the filesystem backend (default: <state_dir>/chunks). */
    chunk_dir: Type.Optional(Type.String({ minLength: 1 })),
    /**
     * New chunks are written into pack files of about this size, one file + fsync (filesystem) or one PUT (S3) per pack
     * instead of per chunk (docs/chunking.md#pack-files). Chunks stored before packs existed stay readable.
     */
    pack_target_bytes: Type.Integer({ minimum: 64 * 1024, maximum: 256 * 1024 * 1024, default: 8 * 1024 * 1024 }),
    /**
     * How new compressible chunks are compressed in packs (docs/chunking.md#frames, decisions 157 and 158): `none`
     * (default): each chunk compressed alone with zstd 3 (fast ingest, cheap range reads); `bwt`: frames of
     * ~`frame_target_bytes` compressed together with a Burrows–Wheeler transform then zstd 9 (densest, ~6× the ingest
     * CPU on text, a cold range read decodes a whole frame: for archival data); `zstd`: zstd 3 frames. Reads handle
     * every form whatever the setting.
     */
    frame_codec: Type.Union([Type.Literal('bwt'), Type.Literal('zstd'), Type.Literal('none')], { default: 'none' }),
    /**
     * zstd level of chunks compressed alone (`frame_codec: none`; docs/chunking.md#compression-where-it-pays, decision
     * 190). 3 (default): fast. Higher stores text smaller for more ingest CPU (measured on log-like and JSON chunks:
     * level 6 −7 % bytes at ~3.4× the CPU, level 9 −14 % at ~6×); reads decode every level at the same cost.
     */
    zstd_level: Type.Integer({ minimum: 1, maximum: 19, default: 3 }),
    /**
     * Bytes of verified chunks kept in memory for range reads and small objects read again (the verified-chunk cache;
     * whole-object restores pass through without filling it). 0 turns it off. Its fill is `svc_chunk_cache_bytes`.
     */
    chunk_cache_bytes: Type.Integer({ minimum: 0, maximum: 4 * 1024 * 1024 * 1024, default: 64 * 1024 * 1024 }),
    /** Raw bytes per frame: larger stores less and makes a cold range read decode more. */
    frame_target_bytes: Type.Integer({ minimum: 64 * 1024, maximum: 8 * 1024 * 1024, default: 1024 * 1024 }),
    /** `packs` (default): the pack layout above. `files`: the old one file (or S3 object) per chunk, for a store shared with an older svc. */
    chunk_layout: Type.Union([Type.Literal('packs'), Type.Literal('files')], { default: 'packs' }),
    /** The S3 backend's bucket and connection. */
    s3: Type.Optional(S3ChunkStorageConfig),
    /** `tenant` (default): dedupe only within a tenant. `global`: across tenants (leaks existence; see docs). */
    dedupe_scope: Type.Union([Type.Literal('tenant'), Type.Literal('global')], { default: 'tenant' }),
  },
  { additionalProperties: false },
);

/** Garbage collection of chunks and abandoned uploads (`svc gc`, docs/objects.md#garbage-collection, decision 116). */
export const GcConfig = Type.Object(
  {
    /**
     * Days a deleted (tombstoned) object's chunks are kept after the delete, for audit and rehydration by manifest id;
     * `null` keeps them forever. Legal holds and quarantine keep chunks regardless.
     */
    tombstone_retention_days: Type.Union([Type.Integer({ minimum: 0, maximum: 36_500 }), Type.Null()], { default: 30 }),
    /**
     * A chunk found unreferenced is first condemned, and deleted by a later run at least this long after; chunks
     * indexed more recently than this are never condemned. Must exceed the longest ingest (one object's upload).
     * Fractions are allowed (0.5 = 30 s), for tests that run GC on a compressed time scale.
     */
    grace_minutes: Type.Number({ minimum: 0, maximum: 43_200, default: 360 }),
    /** A pack whose dead bytes reach this share of its size is rewritten with its live chunks only. */
    repack_dead_ratio: Type.Number({ minimum: 0.05, maximum: 1, default: 0.5 }),
    /**
     * Packs whose chunks were compressed alone with zstd are rewritten as dense frames at this zstd level
     * (docs/objects.md#recompression, decision 207): text ~30 % smaller than zstd 3 on 64 KiB chunks, at ~2–3 MiB/s
     * of encoding per core, once per pack. 0 turns it off.
     */
    recompress_level: Type.Integer({ minimum: 0, maximum: 19, default: 17 }),
    /** Raw bytes per dense frame: larger stores a little less and makes a cold range read decode more. */
    recompress_frame_bytes: Type.Integer({ minimum: 64 * 1024, maximum: 8 * 1024 * 1024, default: 4 * 1024 * 1024 }),
    /** Packs younger than this are not recompressed (recent data is the likeliest to be read, or deleted, soon). */
    recompress_after_minutes: Type.Number({ minimum: 0, maximum: 525_600, default: 60 }),
    /** Open multipart uploads with no activity for this long are aborted and their parts discarded; `null`: never. */
    multipart_expiry_hours: Type.Union([Type.Integer({ minimum: 1, maximum: 87_600 }), Type.Null()], { default: 168 }),
  },
  { additionalProperties: false },
);

export const MultipartConfig = Type.Object(
  {
    min_part_bytes: Type.Integer({ minimum: 1, default: 5 * 1024 * 1024 }),
    max_parts: Type.Integer({ minimum: 1, maximum: 10_000, default: 10_000 }),
    max_part_bytes: Type.Integer({ minimum: 1, default: 64 * 1024 * 1024 }),
  },
  { additionalProperties: false },
);

export const SvcConfig = Type.Object(
  {
    server: ServerConfig,
    grpc: GrpcConfig,
    state_dir: Type.String({ minLength: 1, default: '.svc' }),
    storage: StorageConfig,
    /** Mode used when a request does not name one. */
    default_mode: Type.Union([Type.Literal('observe'), Type.Literal('enforce')], { default: 'enforce' }),
    log_level: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace'].map((l) => Type.Literal(l)), { default: 'info' }),
    multipart: MultipartConfig,
    gc: GcConfig,
    policy: Type.Object({ bundle_name: Type.String({ default: 'default', pattern: '^[a-z0-9][a-z0-9_-]*$' }) }, { additionalProperties: false }),
    /** Canary selectors (src/svc/rollout/canary.ts, docs/rollout.md); absent: no rollout restriction. */
    rollout: Type.Optional(RolloutConfig),
    /** SLO guardrail settings; absent keys take the defaults in src/svc/rollout/slo-guardrail.ts. */
    guardrail: Type.Optional(Type.Partial(GuardrailConfig)),
    /** AI providers; the AI gateway validates each entry against its own schema (docs/ai-gateway.md). */
    providers: Type.Array(Type.Unknown(), { default: [] }),
    /** Report window default and the constants of estimated savings (docs/reports.md). */
    reports: Type.Optional(ReportsConfig),
    /** Energy-aware scheduler: shifting bounds per tenant, the forecast file (docs/scheduler.md). */
    scheduler: Type.Optional(SchedulerConfig),
    /** Several processes on one PostgreSQL database: how often each adopts policy and switch changes made by the others (docs/deployment.md). */
    cluster: Type.Optional(
      Type.Object(
        {
          /** Poll interval of the change feed (PostgreSQL only; SQLite serves one process); 0 = adopt changes only at start. */
          sync_interval_ms: Type.Integer({ minimum: 0, maximum: 60_000, default: 1000 }),
        },
        { additionalProperties: false },
      ),
    ),
    /** Built-in workload adapters (docs/adapters.md): `disabled` ones answer `adapter_unavailable`. */
    adapters: Type.Optional(
      Type.Object(
        {
          disabled: Type.Array(Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$' }), { default: [], maxItems: 64, uniqueItems: true }),
          /** Largest table file, stream append or checkpoint one request may carry (decoded bytes). */
          max_body_bytes: Type.Integer({ minimum: 1024, maximum: 1_073_741_824, default: 67_108_864 }),
        },
        { additionalProperties: false },
      ),
    ),
    /** Signed plugins (docs/plugins.md): the publishers whose Ed25519 keys svc trusts, and the sandbox's limits. */
    plugins: Type.Optional(
      Type.Object(
        {
          /** publisher → Ed25519 public key (PEM, or the raw 32-byte key in base64). Empty: no plugin can be installed. */
          trusted_publishers: Type.Record(Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$' }), Type.String({ minLength: 40, maxLength: 4096 }), { default: {} }),
          /** Upper bound of one plugin call's run time; a manifest may ask for less. */
          max_timeout_ms: Type.Integer({ minimum: 10, maximum: 60_000, default: 2000 }),
          /** Upper bound of one plugin call's memory (the QuickJS heap); a manifest may ask for less. */
          max_memory_bytes: Type.Integer({ minimum: 1_048_576, maximum: 1_073_741_824, default: 67_108_864 }),
          /** Largest object a transform or verifier plugin is handed (it is buffered for the call). */
          max_input_bytes: Type.Integer({ minimum: 1024, maximum: 268_435_456, default: 16_777_216 }),
          /** Largest install request (manifest + files, base64). */
          max_bundle_bytes: Type.Integer({ minimum: 4096, maximum: 67_108_864, default: 4_194_304 }),
          /** Sandbox worker threads (one call each at a time). */
          workers: Type.Integer({ minimum: 1, maximum: 64, default: 2 }),
        },
        { additionalProperties: false },
      ),
    ),
    /** The exact and semantic caches' background purge of expired entries (docs/caches.md#expiry-and-purge, decision 184). */
    cache: Type.Optional(
      Type.Object(
        {
          /**
           * How often each `svc serve` process runs a purge round (one process at a time across a database: a lease);
           * 0 = never. Fractions allowed (0.05 = 50 ms), for tests.
           */
          purge_interval_seconds: Type.Number({ minimum: 0, maximum: 86_400, default: 60 }),
          /**
           * Entries deleted per statement (its own short transaction); a round repeats batches, yielding to the event loop
           * between them, until none is left. On SQLite a batch holds the event loop and the write lock while it runs
           * (~5 ms at 250, ~25 ms at 1,000 with 150,000 entries; decision 184).
           */
          purge_batch_size: Type.Integer({ minimum: 1, maximum: 1000, default: 250 }),
        },
        { additionalProperties: false },
      ),
    ),
    /** Rehydration restore tests: which datasets are critical and how often the tests run (docs/restore-tests.md). */
    restore_tests: Type.Optional(
      Type.Object(
        {
          /** logical_ref prefixes (e.g. `s3://finance/`) of the datasets `critical_full` restores completely. */
          critical_prefixes: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { default: [], maxItems: 100 }),
          /** Manifests `sampled_exact` restores per run. */
          sample_size: Type.Integer({ minimum: 1, maximum: 1000, default: 20 }),
          /** Run `kinds` every this many minutes in `svc serve`; 0 = only on demand. */
          interval_minutes: Type.Integer({ minimum: 0, maximum: 10_080, default: 0 }),
          kinds: Type.Array(Type.Union(['sampled_exact', 'critical_full', 'table_logical', 'cache_source', 'manifest_migration'].map((k) => Type.Literal(k))), {
            default: ['sampled_exact', 'critical_full', 'cache_source', 'manifest_migration'],
            uniqueItems: true,
          }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type SvcConfig = Static<typeof SvcConfig>;

/** Credentials, from the environment only. */
export interface Secrets {
  localApiKey: string | undefined;
  apiKeysJson: string | undefined;
}
