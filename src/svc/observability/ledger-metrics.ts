/**
 * Metrics derived from committed ledger events, so each is counted once, in
 * one place, whatever path wrote the event: `svc_ledger_events_total{type}`
 * and `svc_policy_denials_total{action}` (every deny — plan-time contract
 * denials, object deletes, AI actions; enforced or observed — is a
 * `policy.*.denied` event). Counted after the commit: a deny inside a
 * transaction that rolled back was never recorded, so it is not counted.
 */
import type { EventEmitter } from 'node:events';
import type { LedgerEvent } from '../ledger/event.ts';
import { DENIAL_EVENT_TYPES } from '../policy/enforce-decision.ts';
import { MetricChildren } from './metric-children.ts';
import type { SvcMetrics } from './metrics.ts';

export function countLedgerEvents(appended: EventEmitter, metrics: SvcMetrics): void {
  // Event types are the code's own closed set: one child per type, made once (an AI request appends two events).
  const byType = new MetricChildren((v) => metrics.ledgerEvents.labels(v[0]!));
  appended.on('appended', (events: LedgerEvent[]) => {
    for (const e of events) {
      byType.get(e.type).inc();
      if (DENIAL_EVENT_TYPES.has(e.type)) metrics.policyDenials.inc({ action: typeof e.payload.action === 'string' ? e.payload.action : 'unknown' });
    }
  });
}
