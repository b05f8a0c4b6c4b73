/**
 * Evaluates one input against a compiled bundle, then applies the built-in
 * guarantees that no bundle can switch off:
 *
 * 1. Under the contract `exact_bytes`, every semantic transform is denied.
 * 2. `object.delete` is denied unless a bundle policy explicitly allows it
 *    (the bundle's `default_effect` does not count).
 *
 * Bundle semantics: of the matching policies that carry an effect, the one
 * with the highest priority decides; at equal priority `deny` overrides
 * `allow`. Obligations are the union over every matching policy, and are
 * dropped when the final decision is a deny.
 */
import type { CompiledBundle, CompiledPolicy } from './compile-bundle.ts';
import { isSemanticAction } from './semantic-actions.ts';
import type { Obligation, PolicyDecision, PolicyInput } from './types.ts';

/** The contract under which semantic transforms are refused. */
export const EXACT_BYTES_CONTRACT = 'exact_bytes';
/** The action object gateway deletes are evaluated as. */
export const OBJECT_DELETE_ACTION = 'object.delete';

/** Message of the exact-bytes refusal; names the transform and the contract, as the spec's error rule 1 requires. */
export function exactBytesDenialMessage(action: string, contract: string): string {
  return `the semantic transform '${action}' is denied by the contract '${contract}', which forbids semantic reduction`;
}

export function evaluateCompiled(compiled: CompiledBundle, input: PolicyInput): PolicyDecision {
  const candidates = compiled.byAction.get(input.action) ?? compiled.wildcard;
  const matched: string[] = [];
  let obligations: Obligation[] | undefined;
  let effect: 'allow' | 'deny' | null = null;
  let decidingPriority = 0;
  let deciders: CompiledPolicy[] = [];

  for (const p of candidates) {
    if (!p.matches(input)) continue;
    matched.push(p.id);
    if (p.effect !== null) {
      if (effect === null) {
        effect = p.effect;
        decidingPriority = p.priority;
        deciders = [p];
      } else if (p.priority === decidingPriority) {
        if (p.effect === 'deny' && effect === 'allow') {
          effect = 'deny';
          deciders = [p];
        } else if (p.effect === effect) {
          deciders.push(p);
        }
      }
    }
    for (const o of p.obligations) {
      obligations ??= [];
      if (!obligations.includes(o)) obligations.push(o);
    }
  }

  const bundle = compiled.bundle.ref;

  if (input.contract === EXACT_BYTES_CONTRACT && isSemanticAction(input)) {
    return {
      allow: false,
      reasons: [exactBytesDenialMessage(input.action, input.contract)],
      matched_policy_ids: matched,
      obligations: [],
      bundle,
      guarantee: 'exact_bytes_no_semantic',
    };
  }

  if (input.action === OBJECT_DELETE_ACTION && effect !== 'allow') {
    return {
      allow: false,
      reasons: effect === 'deny'
        ? deciders.map((p) => p.denyReason)
        : ['object delete is denied unless a policy allows it, and no policy in the bundle does'],
      matched_policy_ids: matched,
      obligations: [],
      bundle,
      ...(effect === null ? { guarantee: 'object_delete_default_deny' as const, default_applied: true } : {}),
    };
  }

  if (effect === null) {
    const allow = compiled.bundle.content.default_effect === 'allow';
    return {
      allow,
      reasons: [`no policy decided '${input.action}'; the bundle default is ${compiled.bundle.content.default_effect}`],
      matched_policy_ids: matched,
      obligations: allow ? (obligations ?? []) : [],
      bundle,
      default_applied: true,
    };
  }

  const allow = effect === 'allow';
  return {
    allow,
    reasons: deciders.map((p) => (allow ? p.allowReason : p.denyReason)),
    matched_policy_ids: matched,
    obligations: allow ? (obligations ?? []) : [],
    bundle,
  };
}
