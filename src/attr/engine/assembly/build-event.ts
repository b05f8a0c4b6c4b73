/**
 * The usage event: what was attributed, for whom, against which corpus, with
 * which source references and royalty shares. It carries hashes of the
 * prompt and answer, never their text, because it is written to the audit
 * log. It does not carry the response status: handles are derived from the
 * event hash, and the status is decided after the handles exist.
 */
import { sha256Hex } from '../../../core/hashing.ts';
import type { UsageEvent } from '../../schemas/attribution-response.ts';
import { EVENT_SCHEMA_ID } from '../../schemas/attribution-response.ts';
import { eventHash } from '../../footer/footer-hashes.ts';
import type { Allocation } from '../royalty/allocation.ts';
import type { AttributionContext } from '../types.ts';
import type { LabelledSource } from './analyse-claims.ts';

export const ENGINE_VERSION = 'attr-engine/1.0.0';

export interface EventParts {
  context: AttributionContext;
  origin: UsageEvent['answer_origin'];
  prompt: string;
  answer: string;
  corpusSha256: string;
  revenue: { amount: string; scale: number };
  claimHashes: string[];
  sources: LabelledSource[];
  allocation: Allocation;
}

export function buildEvent(p: EventParts): UsageEvent {
  const body: Omit<UsageEvent, 'event_hash'> = {
    schema: EVENT_SCHEMA_ID,
    event_id: p.context.eventId,
    request_id: p.context.requestId,
    operator: p.context.operator,
    created_at: p.context.createdAt,
    answer_origin: p.origin,
    prompt_sha256: sha256Hex(p.prompt),
    answer_sha256: sha256Hex(p.answer),
    provider: p.context.provider
      ? { provider_id: p.context.provider.providerId, model: p.context.provider.model, response_sha256: p.context.provider.responseSha256 }
      : null,
    corpus_sha256: p.corpusSha256,
    engine_version: ENGINE_VERSION,
    gross_revenue: p.revenue.amount,
    distributable_total: p.revenue.amount,
    amount_scale: p.revenue.scale,
    claim_hashes: p.claimHashes,
    source_references: p.sources.map((s) => ({
      label: s.label,
      role: s.role,
      source_id: s.source.source_id,
      work_id: s.source.work_id,
      uri: s.source.uri,
      content_sha256: s.source.content_sha256,
    })),
    royalty_shares: [...p.allocation.lines, p.allocation.escrow].map((l) => ({ label: l.label, weight: l.weight, amount: l.amount })),
  };
  return { ...body, event_hash: eventHash(body) };
}
