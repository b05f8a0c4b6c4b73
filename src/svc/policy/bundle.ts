/**
 * A policy bundle in its normalised form, and its hash. The hash is SHA-256
 * over the RFC 8785 canonical JSON of the normalised bundle (defaults filled
 * in, id excluded), so the same policies hash the same whether written as
 * YAML or JSON, in any key order, with or without default values spelled out.
 */
import { canonicalSha256 } from '../../core/hashing.ts';
import type { BundleDoc, ConditionDoc, EffectName, MatchDoc, PolicyDoc } from './policy-schema.ts';
import type { Obligation } from './types.ts';
import type { BundleRef } from './types.ts';

export interface NormalizedPolicy {
  id: string;
  description: string;
  priority: number;
  effect: EffectName | null;
  match: MatchDoc;
  obligations: Obligation[];
}

export interface NormalizedBundle {
  name: string;
  version: string;
  description: string;
  default_effect: EffectName;
  policies: NormalizedPolicy[];
}

/** A bundle with its identity: what the engine loads and the store writes. */
export interface PolicyBundle {
  ref: BundleRef;
  content: NormalizedBundle;
}

function normalizeCondition(c: ConditionDoc): ConditionDoc {
  if (c === null || typeof c !== 'object') return c;
  // Sets are order-free: `in: [b, a]` and `in: [a, b]` must hash the same.
  const out: Record<string, unknown> = { ...c };
  for (const op of ['in', 'not_in'] as const) {
    const list = c[op];
    if (list) out[op] = [...list].sort((a, b) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
  }
  return out as ConditionDoc;
}

function normalizeMatch(match: MatchDoc | undefined): MatchDoc {
  const out: Record<string, unknown> = {};
  for (const [field, c] of Object.entries(match ?? {})) {
    if (field === 'attributes') {
      const attrs: Record<string, ConditionDoc> = {};
      for (const [k, v] of Object.entries(c as Record<string, ConditionDoc>)) attrs[k] = normalizeCondition(v);
      out['attributes'] = attrs;
    } else {
      out[field] = normalizeCondition(c as ConditionDoc);
    }
  }
  return out as MatchDoc;
}

export function normalizePolicy(p: PolicyDoc): NormalizedPolicy {
  return {
    id: p.id,
    description: p.description ?? '',
    priority: p.priority ?? 0,
    effect: p.effect ?? null,
    match: normalizeMatch(p.match),
    obligations: [...(p.obligations ?? [])].sort() as Obligation[],
  };
}

/** Fills defaults so the hash depends on meaning, not spelling. Policy order is kept: it is the documented tie-break for reasons. */
export function normalizeBundle(doc: BundleDoc): NormalizedBundle {
  return {
    name: doc.name,
    version: doc.version,
    description: doc.description ?? '',
    default_effect: doc.default_effect ?? 'allow',
    policies: doc.policies.map(normalizePolicy),
  };
}

/** Hex SHA-256 of the canonical JSON of the normalised bundle. */
export function bundleHash(content: NormalizedBundle): string {
  return canonicalSha256(content);
}

/** Builds a `PolicyBundle` from a validated document and the id it was (or will be) published under. */
export function makeBundle(doc: BundleDoc, id: string): PolicyBundle {
  const content = normalizeBundle(doc);
  return { ref: { id, name: content.name, version: content.version, hash: bundleHash(content) }, content };
}

/** The document form written to disk: id first so a reader sees which publish it is. */
export function bundleToDocument(bundle: PolicyBundle): BundleDoc {
  const c = bundle.content;
  return {
    id: bundle.ref.id,
    name: c.name,
    version: c.version,
    ...(c.description ? { description: c.description } : {}),
    default_effect: c.default_effect,
    policies: c.policies.map((p) => ({
      id: p.id,
      ...(p.description ? { description: p.description } : {}),
      ...(p.priority !== 0 ? { priority: p.priority } : {}),
      ...(p.effect ? { effect: p.effect } : {}),
      ...(Object.keys(p.match).length > 0 ? { match: p.match } : {}),
      ...(p.obligations.length > 0 ? { obligations: p.obligations } : {}),
    })),
  };
}
