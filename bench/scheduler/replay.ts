/**
 * svc's decisions for one job, replayed against a series of hourly forecasts with the same functions the
 * scheduler service uses (`plan` and `forecastDecision`, src/svc/scheduler/planner.ts):
 * - `once`: planned at submission on the latest forecast, never revisited (what svc does with no further pulls);
 * - `replanned`: planned at submission, then re-planned at each later hourly pull while the job still waits
 *   (`loadForecast` re-plans every scheduled job of the zone whose run time is still ahead), from that pull on.
 * Jobs are submitted at their earliest start. Every start stays in [earliest, deadline − duration].
 */
import { type IntensitySegment, forecastDecision, plan } from '../../src/svc/scheduler/planner.ts';
import type { BenchJob } from './synthetic-grid.ts';

const H = 3_600_000;

export interface Replay {
  once: number;
  replanned: number;
  /** Re-plans that moved the job. */
  moves: number;
  /** Plans that saw only part of the window (forecast_partial), counting re-plans. */
  partial: number;
  plans: number;
}

export function replay(job: BenchJob, forecastAt: (issuedAt: number) => readonly IntensitySegment[]): Replay {
  const decide = (from: number): { start: number; partial: boolean } => {
    const segments = forecastAt(Math.floor(from / H) * H);
    const d = forecastDecision(plan({ earliest: from, deadline: job.deadline, durationMs: job.durationMs, energyKwh: job.energyKwh, segments }), from);
    return { start: d.start, partial: d.reason === 'forecast_partial' };
  };
  const first = decide(job.earliest);
  let runAt = first.start;
  let moves = 0;
  let partial = first.partial ? 1 : 0;
  let plans = 1;
  for (let pull = Math.floor(job.earliest / H) * H + H; pull < runAt; pull += H) {
    const next = decide(pull);
    plans++;
    if (next.partial) partial++;
    if (next.start !== runAt) moves++;
    runAt = next.start;
  }
  return { once: first.start, replanned: runAt, moves, partial, plans };
}
