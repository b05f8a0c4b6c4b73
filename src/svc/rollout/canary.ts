/**
 * Canary selectors: which work units get which mode and reducer tier. The
 * rollout order of the spec (observe → canary exact → expand exact →
 * canary semantic → expand) is a list of these rules edited over time.
 * Rules are checked in order; the first match wins; the default applies
 * otherwise. A percentage selects by SHA-256 of the work unit id, so the
 * same work unit is always in or out, on every node.
 */
import { createHash } from 'node:crypto';
import Type, { type Static } from 'typebox';
import type { Mode } from '../policy/types.ts';
import type { ReducerTier } from './reducer-tiers.ts';

const Tier = Type.Enum(['none', 'exact', 'all']);
const ModeSchema = Type.Enum(['observe', 'enforce']);

export const CanaryMatch = Type.Object(
  {
    tenants: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    namespaces: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    work_unit_kinds: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    contracts: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1 })),
    /** 0–100, two decimals of resolution. */
    percentage: Type.Optional(Type.Number({ minimum: 0, maximum: 100 })),
  },
  { additionalProperties: false },
);

export const CanaryRule = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64 }),
    match: CanaryMatch,
    mode: ModeSchema,
    reducers: Tier,
  },
  { additionalProperties: false },
);

/** Config key `rollout`. */
export const RolloutConfig = Type.Object(
  {
    default: Type.Object({ mode: ModeSchema, reducers: Tier }, { additionalProperties: false }),
    canaries: Type.Array(CanaryRule, { maxItems: 200 }),
  },
  { additionalProperties: false },
);

export type CanaryRule = Static<typeof CanaryRule>;
export type RolloutConfig = Static<typeof RolloutConfig>;

/**
 * With no `rollout` config the rollout layer restricts nothing: the request's
 * mode (or `default_mode`) and policy decide. docs/rollout.md shows the
 * spec's staged start (observe first, then exact canaries) as config.
 */
export const DEFAULT_ROLLOUT_CONFIG: RolloutConfig = { default: { mode: 'enforce', reducers: 'all' }, canaries: [] };

export interface CanarySubject {
  tenant: string;
  namespace?: string;
  work_unit_kind: string;
  contract: string;
  work_unit_id?: string;
}

/**
 * Bucket 0 ≤ b < 10000 of a work unit id: the first four bytes of its
 * SHA-256 as an unsigned integer, modulo 10000. Deterministic across
 * processes and releases; documented in docs/rollout.md.
 */
export function canaryBucket(workUnitId: string): number {
  return createHash('sha256').update(workUnitId).digest().readUInt32BE(0) % 10_000;
}

/** True when the work unit falls inside `percentage` (a unit without an id is never in a percentage canary). */
export function inPercentage(workUnitId: string | undefined, percentage: number): boolean {
  if (percentage >= 100) return true;
  if (workUnitId === undefined || percentage <= 0) return false;
  return canaryBucket(workUnitId) < Math.round(percentage * 100);
}

export function canaryMatches(rule: CanaryRule, s: CanarySubject): boolean {
  const m = rule.match;
  if (m.tenants && !m.tenants.includes(s.tenant)) return false;
  if (m.namespaces && (s.namespace === undefined || !m.namespaces.includes(s.namespace))) return false;
  if (m.work_unit_kinds && !m.work_unit_kinds.includes(s.work_unit_kind)) return false;
  if (m.contracts && !m.contracts.includes(s.contract)) return false;
  if (m.percentage !== undefined && !inPercentage(s.work_unit_id, m.percentage)) return false;
  return true;
}

export interface CanarySelection {
  rule: string | null;
  mode: Mode;
  reducers: ReducerTier;
}

export function selectCanary(config: RolloutConfig, subject: CanarySubject): CanarySelection {
  for (const rule of config.canaries) {
    if (canaryMatches(rule, subject)) return { rule: rule.name, mode: rule.mode, reducers: rule.reducers };
  }
  return { rule: null, mode: config.default.mode, reducers: config.default.reducers };
}
