/**
 * The shape of a ledger append as the policy, approvals and rollout domains
 * produce it, and the narrow sink they write to. In the composed service the
 * sink is the hash-chained ledger (`app.ledger`); tests pass a recorder.
 * Keeping the dependency this narrow lets the domain stay free of storage.
 */
import type { Principal } from '../auth/principal.ts';

export interface AuditEvent {
  type: string;
  tenant: string;
  /** Always the authenticated principal's actor, never a request field. */
  actor: string;
  work_unit_id?: string;
  policy_bundle_id?: string;
  trace_id?: string;
  payload: Record<string, unknown>;
}

export interface AuditSink {
  append(event: AuditEvent): Promise<unknown>;
}

/** Who is asking and under which trace; every domain call takes one. */
export interface DomainContext {
  principal: Principal;
  traceId?: string;
}

/** Actor used for events the service raises on its own (guardrail trips, recoveries). */
export const SYSTEM_ACTOR = 'system';
