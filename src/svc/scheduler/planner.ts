/**
 * Planning, a pure function: choose the start in [earliest, deadline − duration]
 * that minimises forecast emissions integrated over the run, ties to the
 * earliest. Integrated emissions are piecewise linear in the start time, so
 * the minimum lies on a breakpoint: the window ends, a forecast boundary, or
 * a boundary minus the duration. Checking only those is exact.
 */

export interface IntensitySegment {
  /** ms since epoch */
  start: number;
  end: number;
  gco2PerKwh: number;
}

export interface PlanInput {
  earliest: number;
  deadline: number;
  durationMs: number;
  energyKwh: number;
  /** Sorted, non-overlapping. */
  segments: readonly IntensitySegment[];
}

export interface PlanOutcome {
  start: number;
  /** Estimated gCO2 at the chosen start and at the earliest; null when the forecast does not cover the run. */
  gco2: number | null;
  baselineGco2: number | null;
  /** False when some candidate run was not covered by the forecast. */
  covered: boolean;
}

/** Mean intensity over [s, s+d) or null when any part is not covered. */
export function meanIntensity(segments: readonly IntensitySegment[], s: number, d: number): number | null {
  const e = s + d;
  let covered = 0;
  let sum = 0;
  // Binary search for the first segment that ends after s.
  let lo = 0;
  let hi = segments.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (segments[mid]!.end <= s) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < segments.length && segments[i]!.start < e; i++) {
    const seg = segments[i]!;
    const a = Math.max(s, seg.start);
    const b = Math.min(e, seg.end);
    if (b > a) {
      covered += b - a;
      sum += (b - a) * seg.gco2PerKwh;
    }
  }
  return covered + 0.5 >= d ? sum / d : null;
}

export function plan(input: PlanInput): PlanOutcome {
  const { earliest, durationMs: d, energyKwh, segments } = input;
  const latest = input.deadline - d;
  const baselineMean = meanIntensity(segments, earliest, d);
  const baselineGco2 = baselineMean === null ? null : baselineMean * energyKwh;
  if (latest <= earliest) return { start: earliest, gco2: baselineGco2, baselineGco2, covered: baselineMean !== null };
  const candidates = new Set<number>([earliest, latest]);
  for (const seg of segments) {
    for (const b of [seg.start, seg.end, seg.start - d, seg.end - d]) if (b > earliest && b < latest) candidates.add(b);
  }
  let best = earliest;
  let bestMean = baselineMean;
  let covered = baselineMean !== null;
  for (const c of [...candidates].sort((a, b) => a - b)) {
    const m = meanIntensity(segments, c, d);
    if (m === null) {
      covered = false;
      continue;
    }
    // Strictly lower (with a tolerance for float noise) so ties keep the earlier start.
    if (bestMean === null || m < bestMean - 1e-9) {
      best = c;
      bestMean = m;
    }
  }
  return { start: best, gco2: bestMean === null ? null : bestMean * energyKwh, baselineGco2, covered };
}

export type ForecastPlanReason = 'lowest_forecast_emissions' | 'forecast_partial' | 'forecast_incomplete';

/**
 * What svc makes of a plan on a forecast: the planner's start when the forecast covers every candidate run
 * (`lowest_forecast_emissions`); the best start among the covered runs when it covers only part of the window, as
 * when the window reaches past the forecast horizon (`forecast_partial`: the job is re-planned when a newer forecast
 * arrives); the earliest start when it does not even cover the run at the earliest start (`forecast_incomplete`).
 * Every start stays in [earliest, deadline − duration]. Shared by the scheduler service and the benchmark.
 */
export function forecastDecision(out: PlanOutcome, earliest: number): { start: number; gco2: number | null; reason: ForecastPlanReason } {
  if (out.baselineGco2 === null) return { start: earliest, gco2: null, reason: 'forecast_incomplete' };
  return { start: out.start, gco2: out.gco2, reason: out.covered ? 'lowest_forecast_emissions' : 'forecast_partial' };
}
