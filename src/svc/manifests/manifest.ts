/**
 * The byte-object manifest: what an exact-bytes execution stored and how to
 * get it back bit for bit. Field list and states: docs/manifests.md.
 *
 * States and transitions (docs/decisions/024-manifest-states.md):
 *
 * | from        | to          | trigger                                     |
 * |-------------|-------------|---------------------------------------------|
 * | (none)      | active      | manifest written by an execution            |
 * | active      | tombstoned  | object delete allowed by policy             |
 * | active      | quarantined | rehydration failure (missing/corrupt chunk) |
 * | tombstoned  | quarantined | rehydration failure                         |
 * | quarantined | active      | operator release after the chunks are repaired |
 *
 * A quarantined manifest cannot be tombstoned: lifecycle deletion of its
 * sources is blocked until an operator has looked at it.
 */
import { Type, type Static } from 'typebox';
import type { ChunkingDescriptor } from '../chunking/chunking-params.ts';
import type { ChunkRef } from '../exact-bytes/chunk-ref.ts';

export const MANIFEST_SCHEMA_VERSION = 1;

export const MANIFEST_STATES = ['active', 'tombstoned', 'quarantined'] as const;
export type ManifestState = (typeof MANIFEST_STATES)[number];

/** Allowed state changes; anything else is a `conflict`. */
export const MANIFEST_TRANSITIONS: Readonly<Record<ManifestState, readonly ManifestState[]>> = {
  active: ['tombstoned', 'quarantined'],
  tombstoned: ['quarantined'],
  quarantined: ['active'],
};

/**
 * `unverified`: written, never restored since; `passed`: the last whole
 * rehydration matched the manifest sha256; `failed`: the last rehydration
 * failed (the manifest is then quarantined).
 */
export type VerifierStatus = 'unverified' | 'passed' | 'failed';

/** Figures measured at write time (observe mode: what enforce would have saved). */
export interface ManifestStats {
  chunks_new: number;
  chunks_reused: number;
  bytes_deduplicated: number;
  bytes_saved_by_compression: number;
  would_store_bytes: number;
  detected_format: string | null;
}

export interface ByteManifest {
  manifest_id: string;
  schema_version: number;
  kind: 'byte_object';
  work_unit_id: string;
  plan_id: string | null;
  tenant: string;
  logical_ref: string;
  contract: string;
  mode: 'observe' | 'enforce';
  state: ManifestState;
  sha256: string;
  bytes_in: number;
  bytes_stored: number;
  /** Dedupe scope the chunks live in (`t-…`, `global`, or `o-…` when dedupe was denied). */
  chunk_scope: string;
  chunking: ChunkingDescriptor;
  chunks: ChunkRef[];
  /**
   * SHA-256 of the chunk list as ingest wrote it (chunk-list-digest.ts). A whole rehydration that finds it intact
   * verifies each byte once, against its chunk id (decision 178). Absent on manifests written before it existed and
   * on imported ones: their whole rehydrations also hash the object against `sha256`.
   */
  chunk_list_sha256?: string;
  /** Actions the plan allowed and the executor applied, e.g. hash, content_defined_chunk, dedupe, zstd. */
  applied_actions: string[];
  verifier_status: VerifierStatus;
  /** Exact-bytes executions do not consult a cache. */
  cache_result: 'not_applicable';
  stats: ManifestStats;
  trace_id: string;
  policy_bundle_id: string | null;
  created_at: string;
  updated_at: string;
  /** Why the state last changed (a reason code, never payload text). */
  state_reason: string | null;
}

/** A manifest without its chunk list: list responses. */
export type ManifestSummary = Omit<ByteManifest, 'chunks' | 'chunking' | 'stats' | 'chunk_list_sha256'> & { chunk_count: number };

export function summarize(m: ByteManifest): ManifestSummary {
  const { chunks, chunking: _chunking, stats: _stats, chunk_list_sha256: _listDigest, ...rest } = m;
  return { ...rest, chunk_count: chunks.length };
}

/** Explorer row: ids, totals and statuses only (no logical_ref, no chunk ids). */
export interface RedactedManifestRow {
  manifest_id: string;
  trace_id: string;
  kind: string;
  contract: string;
  state: string;
  bytes_in: number;
  bytes_stored: number;
  verifier_status: string;
  cache_result: string;
  created_at: string;
}

/** Any manifest listed (a byte-object summary or an AI compute manifest summary) as an explorer row. */
export function redactedRow(m: Pick<RedactedManifestRow, keyof RedactedManifestRow>): RedactedManifestRow {
  return {
    manifest_id: m.manifest_id,
    trace_id: m.trace_id,
    kind: m.kind,
    contract: m.contract,
    state: m.state,
    bytes_in: m.bytes_in,
    bytes_stored: m.bytes_stored,
    verifier_status: m.verifier_status,
    cache_result: m.cache_result,
    created_at: m.created_at,
  };
}

/** `GET /v1/manifests` query. */
export const ManifestListQuery = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    logical_ref: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    state: Type.Optional(Type.Union(MANIFEST_STATES.map((s) => Type.Literal(s)))),
    include_tombstoned: Type.Optional(Type.Boolean()),
    redacted: Type.Optional(Type.Boolean()),
    cursor: Type.Optional(Type.String({ pattern: '^mf_[0-9a-hjkmnp-tv-z]{26}$', description: 'next_cursor of the previous page (a manifest id).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  },
  { additionalProperties: false },
);
export type ManifestListQuery = Static<typeof ManifestListQuery>;

/**
 * `POST /v1/manifests/{id}/rehydrate` body. `range` follows HTTP semantics:
 * `{ "start": 0, "end": 99 }` (inclusive end), `{ "start": 100 }` (to the
 * end), `{ "suffix": 500 }` (the last 500 bytes). Omit it for the whole object.
 */
export const RehydrateRequest = Type.Object(
  {
    range: Type.Optional(
      Type.Union([
        Type.Object({ start: Type.Integer(), end: Type.Optional(Type.Integer()) }, { additionalProperties: false }),
        Type.Object({ suffix: Type.Integer() }, { additionalProperties: false }),
      ]),
    ),
  },
  { additionalProperties: false },
);
export type RehydrateRequest = Static<typeof RehydrateRequest>;
