/**
 * Domain records whose shape varies by kind — manifests (byte-object
 * manifests, summaries, redacted explorer rows, AI compute manifests) and
 * ledger events (payload per event type) — as messages: the ids and totals
 * clients filter on as typed fields, the complete REST JSON in a Struct.
 */
import type { LedgerEvent as LedgerEventMessage } from '../generated/svc/v1/LedgerEvent.ts';
import type { Manifest } from '../generated/svc/v1/Manifest.ts';
import type { LedgerEvent } from '../../ledger/event.ts';
import { contractCodec, modeCodec, workUnitKindCodec } from './enums.ts';
import { optional } from './rest-body.ts';
import { toStruct } from './struct.ts';

function str(doc: Record<string, unknown>, key: string): string | undefined {
  const v = doc[key];
  return typeof v === 'string' ? v : undefined;
}

function int(doc: Record<string, unknown>, key: string): number | undefined {
  const v = doc[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/**
 * Any manifest document (as REST returns it) as a `Manifest` message. Each
 * typed field is a copy of the document field of the same name, set only when
 * the document has it (an AI compute manifest has no `sha256`, for example).
 */
export function toManifestMessage(document: object): Manifest {
  const doc = document as Record<string, unknown>;
  return {
    manifest_id: str(doc, 'manifest_id') ?? '',
    work_unit_id: str(doc, 'work_unit_id'),
    tenant: str(doc, 'tenant'),
    kind: workUnitKindCodec.fromWord(str(doc, 'kind')),
    contract: contractCodec.fromWord(str(doc, 'contract')),
    mode: modeCodec.fromWord(str(doc, 'mode')),
    state: str(doc, 'state'),
    sha256: str(doc, 'sha256'),
    bytes_in: int(doc, 'bytes_in'),
    bytes_stored: int(doc, 'bytes_stored'),
    verifier_status: str(doc, 'verifier_status'),
    cache_result: str(doc, 'cache_result'),
    trace_id: str(doc, 'trace_id'),
    policy_bundle_id: str(doc, 'policy_bundle_id'),
    created_at: str(doc, 'created_at'),
    document: toStruct(doc),
  };
}

export function toLedgerEventMessage(e: LedgerEvent): LedgerEventMessage {
  return {
    seq: e.seq,
    id: e.id,
    ts: e.ts,
    type: e.type,
    tenant: optional(e.tenant),
    actor: e.actor,
    work_unit_id: optional(e.work_unit_id),
    manifest_id: optional(e.manifest_id),
    policy_bundle_id: optional(e.policy_bundle_id),
    trace_id: optional(e.trace_id),
    payload: toStruct(e.payload),
    prev_hash: e.prev_hash,
    hash: e.hash,
  };
}
