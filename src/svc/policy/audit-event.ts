/**
 * What the policy, approvals and rollout domains take from their caller: the
 * audit port (src/svc/ledger/sink.ts, shared with the caches) and who asks.
 */
import type { Principal } from '../auth/principal.ts';

export type { AuditEvent, AuditSink } from '../ledger/sink.ts';

/** Who is asking and under which trace; every domain call takes one. */
export interface DomainContext {
  principal: Principal;
  traceId?: string;
}

/** Actor used for events the service raises on its own (guardrail trips, recoveries). */
export const SYSTEM_ACTOR = 'system';
