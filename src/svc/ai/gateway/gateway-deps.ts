/**
 * What the gateway is built from (catalog, upstreams, policy, caches,
 * recorder, ledger, telemetry, rollout) and the defaults that fill the
 * optional parts. Every pipeline step receives the resolved `GatewayDeps`.
 */
import { type CacheLedgerSink } from '../../cache/cache-context.ts';
import { DEFAULT_TTL_SECONDS } from '../../cache/cache-schemas.ts';
import { type ExactCache } from '../../cache/exact/exact-cache.ts';
import { type SemanticCache } from '../../cache/semantic/semantic-cache.ts';
import type { PolicyEvaluator } from '../../policy/types.ts';
import type { ModelCatalog } from '../providers/model-catalog.ts';
import type { UpstreamPool } from '../providers/upstream-pool.ts';
import { NO_ROUTING_SWITCHES, type RoutingSwitches } from '../routing/route-selector.ts';
import { UNRESTRICTED_ROLLOUT } from './ai-rollout.ts';
import { type AiRecorder, type AiRollout, type AiSpans, type AiTelemetry, noSpans, noTelemetry } from './ports.ts';

export interface AiGatewayDeps {
  catalog: ModelCatalog;
  upstreams: UpstreamPool;
  policy: PolicyEvaluator;
  exactCache: ExactCache;
  semanticCache: SemanticCache;
  recorder: AiRecorder;
  ledger: CacheLedgerSink;
  telemetry?: AiTelemetry;
  spans?: AiSpans;
  /** TTL of entries the gateway stores in the exact and semantic caches. */
  cacheTtlSeconds?: number;
  /**
   * The routing rollback switches in force, read once per request (the
   * composed app reads `app.rollout.switchboard.current()`; no I/O).
   */
  routingSwitches?: () => Readonly<RoutingSwitches>;
  /**
   * The rollout decision (canary stage, admin switches, SLO guardrail),
   * asked once per request; the composed app passes `app.rollout`.
   * Without one nothing is restricted by rollout.
   */
  rollout?: AiRollout;
  /**
   * Called when storing a verified answer in a cache fails. The answer is
   * still served (a cache entry is not an acknowledged record); the
   * composed app counts and alerts.
   */
  onCacheWriteError?: (err: unknown) => void;
}

/** The dependencies with every optional part filled in. */
export type GatewayDeps = Required<AiGatewayDeps>;

export function resolveDeps(deps: AiGatewayDeps): GatewayDeps {
  return { telemetry: noTelemetry, spans: noSpans, cacheTtlSeconds: DEFAULT_TTL_SECONDS, onCacheWriteError: () => {}, routingSwitches: () => NO_ROUTING_SWITCHES, rollout: UNRESTRICTED_ROLLOUT, ...deps };
}
