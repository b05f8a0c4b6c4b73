/**
 * What a guardrail trip or recovery writes: an alert-level operational log
 * line and a ledger event (`slo.guardrail.tripped` / `slo.guardrail.recovered`).
 * The guardrail itself is synchronous; ledger appends are fire-and-forget
 * here and a failed append is logged, never thrown into the request path.
 */
import { DEFAULT_TENANT } from '../auth/principal.ts';
import type { OpLog } from '../logs/oplog.ts';
import { type AuditSink, SYSTEM_ACTOR } from '../policy/audit-event.ts';
import type { GuardrailListener, GuardrailState } from './slo-guardrail.ts';

/** The slice of the operational log the guardrail needs (`app.log`). */
export type AlertLog = Pick<OpLog, 'alert' | 'info' | 'error'>;

function payload(state: GuardrailState): Record<string, unknown> {
  return { reason: state.reason, since: state.since, window: state.window, slo: state.slo, advanced_reducers: state.tripped ? 'off' : 'on' };
}

export function alertingGuardrailListener(audit: AuditSink, log: AlertLog): GuardrailListener {
  const append = (type: string, state: GuardrailState) => {
    audit.append({ type, tenant: DEFAULT_TENANT, actor: SYSTEM_ACTOR, payload: payload(state) }).catch(() => {
      log.error({ event_type: `${type}.ledger_failed` }, 'guardrail event could not be written to the ledger');
    });
  };
  return {
    tripped(state) {
      log.alert({ event_type: 'slo.guardrail.tripped', p95_ms: state.window.p95_ms, failure_rate: state.window.failure_rate, samples: state.window.samples }, 'SLO guardrail tripped: advanced reducers disabled');
      append('slo.guardrail.tripped', state);
    },
    recovered(state) {
      log.info({ event_type: 'slo.guardrail.recovered', p95_ms: state.window.p95_ms, failure_rate: state.window.failure_rate }, 'SLO guardrail recovered: advanced reducers enabled');
      append('slo.guardrail.recovered', state);
    },
  };
}
