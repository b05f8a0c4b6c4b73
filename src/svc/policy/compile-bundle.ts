/**
 * Compiles a normalised bundle into indexed matchers. Policies that name
 * their action by equality are indexed by action; the rest are "wildcard"
 * policies checked for every input. For each action the candidate list is
 * merged and sorted once at compile time, so evaluation is one Map lookup
 * followed by a scan of only the policies that can possibly match.
 */
import type { ConditionDoc, MatchDoc } from './policy-schema.ts';
import type { NormalizedPolicy, PolicyBundle } from './bundle.ts';
import { compileCondition, equalityKeys, type Scalar, type ValuePredicate } from './compile-condition.ts';
import type { Obligation, PolicyInput } from './types.ts';

export type InputPredicate = (input: PolicyInput) => boolean;

export interface CompiledPolicy {
  id: string;
  description: string;
  priority: number;
  effect: 'allow' | 'deny' | null;
  obligations: readonly Obligation[];
  /** Position in the bundle; the tie-break after priority, so reasons read in document order. */
  order: number;
  /** Reason strings built once here rather than on every decision. */
  allowReason: string;
  denyReason: string;
  matches: InputPredicate;
}

export interface CompiledBundle {
  bundle: PolicyBundle;
  /** Candidates per action (indexed + wildcard), sorted by priority desc then document order. */
  byAction: ReadonlyMap<string, readonly CompiledPolicy[]>;
  /** Candidates for an action no policy names: the wildcard policies only. */
  wildcard: readonly CompiledPolicy[];
  policyCount: number;
}

type FieldReader = (input: PolicyInput) => Scalar | undefined;

const FIELD_READERS: Record<Exclude<keyof MatchDoc, 'attributes' | 'role'>, FieldReader> = {
  tenant: (i) => i.tenant,
  namespace: (i) => i.namespace,
  work_unit_kind: (i) => i.work_unit_kind,
  work_unit_id: (i) => i.work_unit_id,
  contract: (i) => i.contract,
  mode: (i) => i.mode,
  action: (i) => i.action,
  action_class: (i) => i.action_class,
  risk: (i) => i.risk,
  model_route: (i) => i.model_route,
  actor: (i) => i.principal.actor,
  principal_tenant: (i) => i.principal.tenant,
};

function fieldPredicate(field: keyof MatchDoc, condition: ConditionDoc): InputPredicate {
  const test: ValuePredicate = compileCondition(condition);
  if (field === 'role') {
    // A multi-valued field: the condition holds when any role satisfies it (or, for a principal without roles, when "nothing" does).
    return (i) => (i.principal.roles.length === 0 ? test(undefined) : i.principal.roles.some((r) => test(r)));
  }
  const read = FIELD_READERS[field as Exclude<keyof MatchDoc, 'attributes' | 'role'>];
  return (i) => test(read(i));
}

function compileMatch(match: MatchDoc, skipAction: boolean): InputPredicate {
  const preds: InputPredicate[] = [];
  for (const [field, condition] of Object.entries(match) as Array<[keyof MatchDoc, unknown]>) {
    if (field === 'attributes') {
      for (const [name, c] of Object.entries(condition as Record<string, ConditionDoc>)) {
        const test = compileCondition(c);
        preds.push((i) => test(i.attributes?.[name]));
      }
    } else if (!(field === 'action' && skipAction)) {
      preds.push(fieldPredicate(field, condition as ConditionDoc));
    }
  }
  if (preds.length === 0) return () => true;
  if (preds.length === 1) return preds[0]!;
  return (i) => {
    for (const p of preds) if (!p(i)) return false;
    return true;
  };
}

function byPriority(a: CompiledPolicy, b: CompiledPolicy): number {
  return b.priority - a.priority || a.order - b.order;
}

function compilePolicy(p: NormalizedPolicy, order: number, indexed: boolean): CompiledPolicy {
  const name = p.description ? `${p.id} (${p.description})` : p.id;
  return {
    allowReason: `allowed by ${name}`,
    denyReason: `denied by ${name}`,
    id: p.id,
    description: p.description,
    priority: p.priority,
    effect: p.effect,
    obligations: Object.freeze([...p.obligations]),
    order,
    // An indexed policy is only ever a candidate for its own actions, so its action test is already done.
    matches: compileMatch(p.match, indexed),
  };
}

/** Compiles a bundle for the hot path. Pure; safe to call off the request path and swap in atomically. */
export function compileBundle(bundle: PolicyBundle): CompiledBundle {
  const wildcard: CompiledPolicy[] = [];
  const indexed = new Map<string, CompiledPolicy[]>();
  bundle.content.policies.forEach((p, order) => {
    const keys = equalityKeys(p.match.action);
    const compiled = compilePolicy(p, order, keys !== undefined);
    if (keys === undefined) {
      wildcard.push(compiled);
      return;
    }
    for (const key of new Set(keys)) {
      const list = indexed.get(key) ?? [];
      list.push(compiled);
      indexed.set(key, list);
    }
  });
  wildcard.sort(byPriority);
  const byAction = new Map<string, readonly CompiledPolicy[]>();
  for (const [action, list] of indexed) byAction.set(action, Object.freeze([...list, ...wildcard].sort(byPriority)));
  return { bundle, byAction, wildcard: Object.freeze(wildcard), policyCount: bundle.content.policies.length };
}
