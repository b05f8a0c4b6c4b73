/**
 * Calibration of a domain's semantic-cache threshold on the tenant's own
 * labelled pairs (docs/semantic-cache.md, "Calibration"): for each pair the
 * cache's own judgement (pair-judge.ts: normaliser, alignment, embedder)
 * decides at which similarity `text_b` would be served the answer stored for
 * `text_a`; the lowest threshold whose false acceptance on label-0 pairs is
 * at most the target is chosen. The measurement needs enough label-0 pairs
 * to see the target (at least 1 / target), else it refuses rather than guess.
 */
import { SvcError } from '../../errors.ts';
import type { Embedder } from './embedder.ts';
import { meetsThreshold, scorePair } from './pair-judge.ts';

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

/** Thresholds tried: 0.50 … 0.99 by 0.01, then 1 (only pairs the alignment finds identical up to free edits). */
export const CALIBRATION_GRID = [...Array.from({ length: 50 }, (_, i) => Math.round((0.5 + i * 0.01) * 100) / 100), 1];

/** The curve of false acceptance and hit rate over `thresholds` for pairs scored by scorePair. */
export function curveOf(scored: ReadonlyArray<{ label: number; similarity: number }>, thresholds: readonly number[]): CurvePoint[] {
  const negatives = scored.filter((s) => s.label === 0).length;
  const positives = scored.length - negatives;
  return thresholds.map((threshold) => ({
    threshold,
    false_accept_rate: negatives === 0 ? 0 : scored.filter((s) => s.label === 0 && meetsThreshold(s.similarity, threshold)).length / negatives,
    hit_rate: positives === 0 ? 0 : scored.filter((s) => s.label !== 0 && meetsThreshold(s.similarity, threshold)).length / positives,
  }));
}

export async function calibrateThreshold(pairs: readonly LabelledPair[], maxFalseAccept: number, embedder: Embedder): Promise<CalibrationOutcome> {
  const negatives = pairs.filter((p) => p.label === 0).length;
  const positives = pairs.length - negatives;
  const needed = Math.ceil(1 / maxFalseAccept);
  if (negatives < needed) {
    throw new SvcError('invalid_request', `measuring a false acceptance of ${maxFalseAccept} needs at least ${needed} label-0 pairs; got ${negatives}`, { details: { needed, negatives } });
  }
  if (positives === 0) throw new SvcError('invalid_request', 'calibration needs label-1 pairs too (paraphrases the cache should serve)');
  const scored: Array<{ label: 0 | 1; similarity: number }> = [];
  // A pair the alignment refuses scores -1: never served at any threshold.
  for (const p of pairs) scored.push({ label: p.label, similarity: (await scorePair(embedder, p.text_a, p.text_b)).similarity });
  const curve = curveOf(scored, CALIBRATION_GRID);
  const chosen = curve.find((c) => c.false_accept_rate <= maxFalseAccept);
  if (!chosen) {
    throw new SvcError('invalid_request', `no threshold up to ${CALIBRATION_GRID.at(-1)} keeps false acceptance at or below ${maxFalseAccept} on these pairs`, {
      details: { lowest_false_accept_rate: curve.at(-1)!.false_accept_rate },
    });
  }
  return { threshold: chosen.threshold, false_accept_rate: chosen.false_accept_rate, hit_rate: chosen.hit_rate, negatives, positives, curve };
}
