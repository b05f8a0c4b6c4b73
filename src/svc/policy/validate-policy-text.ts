/**
 * Validates a policy or bundle document given as YAML or JSON text and
 * reports every problem with its line and column. This is the one
 * validation used by `svc policy validate`, `POST /v1/policies/validate`,
 * bundle publish and bundle reload.
 */
import { isMap, isScalar, LineCounter, parseDocument } from 'yaml';
import { BundleDocument, type BundleDoc, type ConditionDoc, type MatchDoc, type PolicyDoc, PolicyDocument } from './policy-schema.ts';
import { schemaIssues } from './schema-errors.ts';
import { locatePointer } from './yaml-locations.ts';

export interface PolicyValidationIssue {
  line: number;
  column: number;
  /** JSON pointer of the offending value, e.g. `/policies/2/match/action`. */
  path: string;
  message: string;
}

export type PolicyValidationResult =
  | { ok: true; kind: 'bundle'; bundle: BundleDoc }
  | { ok: true; kind: 'policy'; policy: PolicyDoc }
  | { ok: false; kind: 'bundle' | 'policy' | 'unknown'; errors: PolicyValidationIssue[] };

/** Largest document accepted (a bundle of thousands of policies fits easily). */
export const MAX_POLICY_TEXT_BYTES = 2 * 1024 * 1024;

const NUMERIC_OPERATORS = ['gt', 'gte', 'lt', 'lte'] as const;

interface SemanticIssue {
  path: string;
  message: string;
  atKey?: boolean;
}

function conditionIssues(condition: ConditionDoc, path: string, numericAllowed: boolean): SemanticIssue[] {
  if (condition === null || typeof condition !== 'object') return [];
  const issues: SemanticIssue[] = [];
  if (!numericAllowed) {
    for (const op of NUMERIC_OPERATORS) {
      if (op in condition) issues.push({ path: `${path}/${op}`, message: `numeric operator '${op}' applies to attributes only; this field is text`, atKey: true });
    }
  }
  return issues;
}

function matchIssues(match: MatchDoc | undefined, base: string): SemanticIssue[] {
  if (!match) return [];
  const issues: SemanticIssue[] = [];
  for (const [field, condition] of Object.entries(match)) {
    if (field === 'attributes') {
      for (const [name, c] of Object.entries(condition as Record<string, ConditionDoc>)) issues.push(...conditionIssues(c, `${base}/attributes/${name}`, true));
    } else {
      issues.push(...conditionIssues(condition as ConditionDoc, `${base}/${field}`, false));
    }
  }
  return issues;
}

function policyIssues(policy: PolicyDoc, base: string): SemanticIssue[] {
  const issues = matchIssues(policy.match, `${base}/match`);
  if (policy.effect === undefined && (policy.obligations ?? []).length === 0) {
    issues.push({ path: base, message: `policy '${policy.id}' has neither an effect nor obligations, so it can never change a decision` });
  }
  if (policy.effect === 'deny' && (policy.obligations ?? []).length > 0) {
    issues.push({ path: `${base}/obligations`, message: `policy '${policy.id}' denies, so its obligations would never apply; remove them or make it allow` });
  }
  return issues;
}

function bundleIssues(bundle: BundleDoc): SemanticIssue[] {
  const issues: SemanticIssue[] = [];
  const firstSeen = new Map<string, number>();
  bundle.policies.forEach((policy, i) => {
    const earlier = firstSeen.get(policy.id);
    if (earlier !== undefined) issues.push({ path: `/policies/${i}/id`, message: `duplicate policy id '${policy.id}' (first used by policy #${earlier + 1})` });
    else firstSeen.set(policy.id, i);
    issues.push(...policyIssues(policy, `/policies/${i}`));
  });
  return issues;
}

/**
 * Parses and validates `text`. A document with a top-level `policies` list is
 * a bundle; anything else is a single policy. Example:
 *
 * ```ts
 * const r = validatePolicyText(readFileSync(file, 'utf8'));
 * if (!r.ok) for (const e of r.errors) console.error(`${file}:${e.line}:${e.column}: ${e.message}`);
 * ```
 */
export function validatePolicyText(text: string): PolicyValidationResult {
  if (Buffer.byteLength(text, 'utf8') > MAX_POLICY_TEXT_BYTES) {
    return { ok: false, kind: 'unknown', errors: [{ line: 1, column: 1, path: '', message: `document is larger than ${MAX_POLICY_TEXT_BYTES} bytes` }] };
  }
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      kind: 'unknown',
      errors: doc.errors.map((e) => {
        const pos = counter.linePos(e.pos[0]);
        return { line: pos.line, column: pos.col, path: '', message: e.message.split('\n')[0] ?? e.message };
      }),
    };
  }
  const contents = doc.contents;
  if (!isMap(contents)) {
    return { ok: false, kind: 'unknown', errors: [{ line: 1, column: 1, path: '', message: 'expected a mapping: a policy (id, effect, match) or a bundle (name, version, policies)' }] };
  }
  const isBundle = contents.items.some((p) => isScalar(p.key) && p.key.value === 'policies');
  let value: unknown;
  try {
    // Aliases are refused outright: a policy never needs them and they allow exponential expansion.
    value = doc.toJS({ maxAliasCount: 0 });
  } catch (err) {
    return { ok: false, kind: 'unknown', errors: [{ line: 1, column: 1, path: '', message: `cannot read document: ${(err as Error).message}` }] };
  }
  const kind = isBundle ? 'bundle' : 'policy';
  const issues: SemanticIssue[] = schemaIssues(isBundle ? BundleDocument : PolicyDocument, value);
  if (issues.length === 0) issues.push(...(isBundle ? bundleIssues(value as BundleDoc) : policyIssues(value as PolicyDoc, '')));
  if (issues.length > 0) {
    const errors = issues
      .map((i) => ({ ...locatePointer(doc, counter, i.path, { preferKey: i.atKey ?? false }), path: i.path, message: i.message }))
      .sort((a, b) => a.line - b.line || a.column - b.column);
    return { ok: false, kind, errors };
  }
  return isBundle ? { ok: true, kind: 'bundle', bundle: value as BundleDoc } : { ok: true, kind: 'policy', policy: value as PolicyDoc };
}

/** `file:line:column: message` lines, the format editors and CI annotate from. */
export function formatValidationIssues(source: string, errors: readonly PolicyValidationIssue[]): string[] {
  return errors.map((e) => `${source}:${e.line}:${e.column}: ${e.message}${e.path ? ` (at ${e.path})` : ''}`);
}
