/**
 * Warrant profile: the force with which a text asserts something (relation,
 * modality, scope, temporal and numeric force), and the comparison of a
 * claim's force with its evidence's. A claim may be as strong as its
 * evidence, never stronger (rules 4 and 11).
 */
import type { WarrantProfile } from '../../schemas/attribution-response.ts';
import {
  APPROXIMATE, BOUNDED, CAUSAL, CERTAIN, CORRELATIONAL, GENERAL, PARTICULAR, POSSIBLE, PROBABLE, TEMPORAL_MARKERS, UNIVERSAL,
} from './lexicon.ts';
import { numberMentions } from './numbers.ts';
import { stripCitationNoise } from '../text/citation-markers.ts';
import { stripLinks } from '../text/links.ts';

/** Citation markers and links carry no warrant; "[1]" is not the number one. */
function body(text: string): string {
  return stripLinks(stripCitationNoise(text));
}

export function warrantProfile(rawText: string): WarrantProfile {
  const text = body(rawText);
  const t = text.toLowerCase();
  const nums = numberMentions(text);
  return {
    relation: CAUSAL.test(t) ? 'causal' : CORRELATIONAL.test(t) ? 'correlational' : 'descriptive',
    modality: CERTAIN.test(t) ? 'certain' : POSSIBLE.test(t) ? 'possible' : PROBABLE.test(t) ? 'probable' : 'asserted',
    scope: UNIVERSAL.test(t) ? 'universal' : GENERAL.test(t) ? 'general' : PARTICULAR.test(t) ? 'particular' : 'unspecified',
    temporal: new RegExp(TEMPORAL_MARKERS.source, 'i').test(t) ? 'present_relative' : nums.years.length > 0 ? 'dated' : 'atemporal',
    numeric: nums.values.length === 0 ? 'none' : APPROXIMATE.test(t) ? 'approximate' : BOUNDED.test(t) ? 'bounded' : 'exact',
  };
}

const DEFAULTS: WarrantProfile = { relation: 'descriptive', modality: 'asserted', scope: 'unspecified', temporal: 'atemporal', numeric: 'none' };

/** `dimension:value` for every dimension that is not at its neutral value, in a fixed order. */
export function forceFlags(profile: WarrantProfile): string[] {
  const out: string[] = [];
  for (const key of ['relation', 'modality', 'scope', 'temporal', 'numeric'] as const) {
    if (profile[key] !== DEFAULTS[key]) out.push(`${key}:${profile[key]}`);
  }
  return out;
}

const MODALITY_RANK = { possible: 0, probable: 1, asserted: 2, certain: 3 } as const;
const SCOPE_RANK = { particular: 0, general: 1, unspecified: 1, universal: 2 } as const;

/**
 * Ways in which the claim is stronger than its evidence. Empty when the
 * evidence warrants the claim. The flag names are part of the public
 * vocabulary (docs/attr-engine.md).
 */
export function warrantMismatchFlags(claimText: string, evidenceText: string): string[] {
  const c = warrantProfile(claimText);
  const e = warrantProfile(evidenceText);
  const flags: string[] = [];
  if (c.relation === 'causal' && e.relation === 'correlational') flags.push('relation_causal_from_correlational');
  if (MODALITY_RANK[c.modality] > MODALITY_RANK[e.modality]) flags.push('modality_stronger_than_evidence');
  if (SCOPE_RANK[c.scope] > SCOPE_RANK[e.scope]) flags.push('scope_broader_than_evidence');
  const cn = numberMentions(body(claimText));
  const en = numberMentions(body(evidenceText));
  if (cn.years.some((y) => !en.years.includes(y))) flags.push('temporal_year_not_in_evidence');
  if (c.temporal === 'present_relative' && e.temporal === 'dated') flags.push('temporal_present_from_dated_evidence');
  if (cn.values.some((v) => !en.values.includes(v))) flags.push('numeric_value_not_in_evidence');
  else if (c.numeric === 'exact' && (e.numeric === 'approximate' || e.numeric === 'bounded')) flags.push('numeric_precision_stronger_than_evidence');
  return flags;
}
