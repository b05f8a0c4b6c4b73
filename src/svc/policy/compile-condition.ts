/**
 * Compiles one condition of the policy language into a predicate over a
 * single input value. Compilation happens once per bundle load, so the hot
 * path runs closures, not interpretation of the document.
 */
import type { ConditionDoc, ConditionOperatorsDoc } from './policy-schema.ts';

export type Scalar = string | number | boolean;
export type ValuePredicate = (value: Scalar | undefined) => boolean;

function operatorPredicates(ops: ConditionOperatorsDoc): ValuePredicate[] {
  const preds: ValuePredicate[] = [];
  if (ops.eq !== undefined) {
    const eq = ops.eq;
    preds.push((v) => v === eq);
  }
  if (ops.ne !== undefined) {
    const ne = ops.ne;
    preds.push((v) => v !== ne);
  }
  if (ops.in !== undefined) {
    const set = new Set<Scalar>(ops.in);
    preds.push((v) => v !== undefined && set.has(v));
  }
  if (ops.not_in !== undefined) {
    const set = new Set<Scalar>(ops.not_in);
    preds.push((v) => v === undefined || !set.has(v));
  }
  if (ops.prefix !== undefined) {
    const prefix = ops.prefix;
    preds.push((v) => typeof v === 'string' && v.startsWith(prefix));
  }
  if (ops.gt !== undefined) {
    const n = ops.gt;
    preds.push((v) => typeof v === 'number' && v > n);
  }
  if (ops.gte !== undefined) {
    const n = ops.gte;
    preds.push((v) => typeof v === 'number' && v >= n);
  }
  if (ops.lt !== undefined) {
    const n = ops.lt;
    preds.push((v) => typeof v === 'number' && v < n);
  }
  if (ops.lte !== undefined) {
    const n = ops.lte;
    preds.push((v) => typeof v === 'number' && v <= n);
  }
  if (ops.exists !== undefined) {
    const want = ops.exists;
    preds.push((v) => (v !== undefined) === want);
  }
  return preds;
}

/**
 * A predicate for one condition. A missing input value satisfies only
 * `ne`, `not_in` and `exists: false` (it is not equal to anything).
 */
export function compileCondition(condition: ConditionDoc): ValuePredicate {
  if (condition === null || typeof condition !== 'object') {
    const eq = condition;
    return (v) => v === eq;
  }
  const preds = operatorPredicates(condition);
  if (preds.length === 1) return preds[0]!;
  return (v) => {
    for (const p of preds) if (!p(v)) return false;
    return true;
  };
}

/** The exact action names a condition restricts to, or undefined when it is not a plain equality/set (used to index policies by action). */
export function equalityKeys(condition: ConditionDoc | undefined): string[] | undefined {
  if (condition === undefined) return undefined;
  if (typeof condition === 'string') return [condition];
  if (condition === null || typeof condition !== 'object') return undefined;
  const ops = Object.keys(condition);
  if (ops.length !== 1) return undefined;
  if (condition.eq !== undefined && typeof condition.eq === 'string') return [condition.eq];
  if (condition.in !== undefined && condition.in.every((x) => typeof x === 'string')) return condition.in as string[];
  return undefined;
}
