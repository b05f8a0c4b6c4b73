/**
 * Rollout state of one server: the canary config, the switchboard and the
 * guardrail, with the two calls other parts make — `decide` (planner, AI
 * gateway) and `readiness` (the `/v1/admin/readiness` report).
 */
import { requirePermission } from '../auth/principal.ts';
import type { DomainContext } from '../policy/audit-event.ts';
import type { BundleRef } from '../policy/types.ts';
import type { RolloutConfig } from './canary.ts';
import { decideRollout, type RolloutDecision, type RolloutRequest } from './rollout-decision.ts';
import type { GuardrailState, SloGuardrail } from './slo-guardrail.ts';
import type { Switchboard } from './switchboard.ts';
import type { Switches } from './switches.ts';

export interface RolloutReadiness {
  switches: Readonly<Switches>;
  guardrail: GuardrailState;
  policy_bundle: BundleRef;
  canaries: Array<{ name: string; mode: string; reducers: string }>;
  default: RolloutConfig['default'];
}

export class RolloutService {
  readonly config: RolloutConfig;
  readonly switchboard: Switchboard;
  readonly guardrail: SloGuardrail;
  readonly #activeBundle: () => BundleRef;

  constructor(options: { config: RolloutConfig; switchboard: Switchboard; guardrail: SloGuardrail; activeBundle: () => BundleRef }) {
    this.config = options.config;
    this.switchboard = options.switchboard;
    this.guardrail = options.guardrail;
    this.#activeBundle = options.activeBundle;
  }

  /** Effective mode, contract and reducer tier for one work unit. Synchronous, no I/O. */
  decide(request: RolloutRequest): RolloutDecision {
    return decideRollout(request, this.config, this.switchboard.current(), this.guardrail.tripped);
  }

  /** `GET /v1/admin/switches` and the admin readiness report (requires `metrics:read`). */
  readinessFor(ctx: DomainContext): RolloutReadiness {
    requirePermission(ctx.principal, 'metrics:read');
    return this.readiness();
  }

  /** What readiness shows: every switch, the guardrail window and state, the bundle in force, the canary rules. */
  readiness(): RolloutReadiness {
    return {
      switches: this.switchboard.current(),
      guardrail: this.guardrail.check(),
      policy_bundle: this.#activeBundle(),
      canaries: this.config.canaries.map((c) => ({ name: c.name, mode: c.mode, reducers: c.reducers })),
      default: this.config.default,
    };
  }
}

/** One line for the readiness check list: guardrail state and which switches are on. */
export function rolloutReadinessDetail(r: RolloutReadiness): string {
  const s = r.switches;
  const on = [
    s.force_exact_contract && 'force_exact_contract',
    s.bypass_optimisation && 'bypass_optimisation',
    s.model_router_disabled && 'model_router_disabled',
    s.route_to_baseline_provider && 'route_to_baseline_provider',
    s.disabled_reducers.length > 0 && `disabled_reducers=${s.disabled_reducers.join(',')}`,
    s.disabled_plugins.length > 0 && `disabled_plugins=${s.disabled_plugins.join(',')}`,
    s.policy_bundle && `policy_bundle=${s.policy_bundle.name}${s.policy_bundle.version ? `@${s.policy_bundle.version}` : ''}`,
  ].filter((x): x is string => typeof x === 'string');
  const guardrail = r.guardrail.tripped ? `guardrail TRIPPED since ${r.guardrail.since}: ${r.guardrail.reason}` : 'guardrail ok';
  return `${guardrail}; switches on: ${on.length > 0 ? on.join(' ') : 'none'}`;
}
