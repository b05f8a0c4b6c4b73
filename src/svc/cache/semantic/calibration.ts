/**
 * Calibration of a domain's semantic-cache threshold on the tenant's own
 * labelled pairs (docs/semantic-cache.md, "Calibration"): for each pair the
 * cache's own normaliser, embedder and meaning guard decide whether `text_b`
 * would be served the answer stored for `text_a` at each threshold; the
 * lowest threshold whose false acceptance on label-0 pairs is at most the
 * target is chosen. The measurement needs enough label-0 pairs to see the
 * target (at least 1 / target), else it refuses rather than guess.
 */
import { SvcError } from '../../errors.ts';
import type { Embedder } from './embedder.ts';
import { cosineSimilarity } from './lexical-embedding.ts';
import { compareMeaningMarkers } from './meaning-guard.ts';
import { normaliseQuery } from './query-normaliser.ts';

export interface LabelledPair {
  text_a: string;
  text_b: string;
  label: 0 | 1;
}

export interface CurvePoint {
  threshold: number;
  false_accept_rate: number;
  hit_rate: number;
}

export interface CalibrationOutcome {
  threshold: number;
  false_accept_rate: number;
  hit_rate: number;
  negatives: number;
  positives: number;
  curve: CurvePoint[];
}

/** Thresholds tried: 0.50 … 0.99 by 0.01 (the lexical embedder's useful range). */
export const CALIBRATION_GRID = Array.from({ length: 50 }, (_, i) => Math.round((0.5 + i * 0.01) * 100) / 100);

export async function calibrateThreshold(pairs: readonly LabelledPair[], maxFalseAccept: number, embedder: Embedder): Promise<CalibrationOutcome> {
  const negatives = pairs.filter((p) => p.label === 0).length;
  const positives = pairs.length - negatives;
  const needed = Math.ceil(1 / maxFalseAccept);
  if (negatives < needed) {
    throw new SvcError('invalid_request', `measuring a false acceptance of ${maxFalseAccept} needs at least ${needed} label-0 pairs; got ${negatives}`, { details: { needed, negatives } });
  }
  if (positives === 0) throw new SvcError('invalid_request', 'calibration needs label-1 pairs too (paraphrases the cache should serve)');
  const scored: Array<{ label: 0 | 1; sim: number }> = [];
  for (const p of pairs) {
    const a = normaliseQuery(p.text_a);
    const b = normaliseQuery(p.text_b);
    // A pair the guard refuses is never served at any threshold.
    if (a === '' || b === '' || !compareMeaningMarkers(a, b).same) {
      scored.push({ label: p.label, sim: -1 });
      continue;
    }
    scored.push({ label: p.label, sim: cosineSimilarity(await embedder.embed(a), await embedder.embed(b)) });
  }
  const curve = CALIBRATION_GRID.map((threshold) => ({
    threshold,
    false_accept_rate: scored.filter((s) => s.label === 0 && s.sim >= threshold).length / negatives,
    hit_rate: scored.filter((s) => s.label === 1 && s.sim >= threshold).length / positives,
  }));
  const chosen = curve.find((c) => c.false_accept_rate <= maxFalseAccept);
  if (!chosen) {
    throw new SvcError('invalid_request', `no threshold up to ${CALIBRATION_GRID.at(-1)} keeps false acceptance at or below ${maxFalseAccept} on these pairs`, {
      details: { lowest_false_accept_rate: curve.at(-1)!.false_accept_rate },
    });
  }
  return { threshold: chosen.threshold, false_accept_rate: chosen.false_accept_rate, hit_rate: chosen.hit_rate, negatives, positives, curve };
}
