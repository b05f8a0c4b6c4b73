/**
 * The contract between the policy engine and everything that asks it a
 * question (planner, executors, object gateway, AI gateway). Planning and
 * execution depend on these types only, never on how policies are stored.
 */
import type { Principal } from '../auth/principal.ts';

export type Mode = 'observe' | 'enforce';

/** Reference to the bundle a decision was made under; recorded in plans, manifests, headers and ledger events. */
export interface BundleRef {
  id: string; // pb_…
  name: string;
  version: string;
  hash: string; // hex SHA-256 of the canonical bundle
}

export interface PolicyInput {
  principal: Pick<Principal, 'actor' | 'roles' | 'tenant'>;
  tenant: string;
  namespace?: string;
  work_unit_id?: string;
  work_unit_kind: string;
  contract: string;
  mode: Mode;
  /** The action or transform being decided, e.g. `zstd`, `semantic_summary`, `object.delete`, `model.route`. */
  action: string;
  /** `exact` transforms keep bytes identical on rehydration; `semantic` ones do not. */
  action_class?: 'exact' | 'semantic' | 'operation';
  risk?: 'low' | 'medium' | 'high';
  model_route?: string;
  attributes?: Record<string, string | number | boolean>;
}

export type Obligation = 'requires_approval' | 'force_exact' | 'observe_only';

/**
 * Guarantees built into the evaluator that no bundle can switch off. A
 * decision names the one that decided it, so callers can tell a contract
 * refusal (enforced in every mode) from a bundle decision.
 */
export type BuiltinGuarantee = 'exact_bytes_no_semantic' | 'object_delete_default_deny' | 'evaluation_unavailable';

export interface PolicyDecision {
  allow: boolean;
  reasons: string[];
  matched_policy_ids: string[];
  obligations: Obligation[];
  bundle: BundleRef;
  /** Set when a built-in guarantee decided (always a deny). */
  guarantee?: BuiltinGuarantee;
  /** True when no bundle policy decided the effect and the bundle default (or built-in default) applied. */
  default_applied?: boolean;
}

/** What the domain layer holds: evaluation is synchronous and in-process (hot path). */
export interface PolicyEvaluator {
  evaluate(input: PolicyInput): PolicyDecision;
  activeBundle(): BundleRef;
}
