/**
 * The scheduler's forecast file: operator forecast points loaded at start-up
 * (`scheduler.forecast_file`, default `<state_dir>/scheduler/forecast.json`
 * when it exists), through the same domain function as
 * POST /v1/scheduler/forecasts, so the same validation applies and scheduled
 * jobs of those zones are re-planned. A file that does not parse or validate
 * stops the start with a configuration error naming the file; nothing of it
 * is loaded.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { makePrincipal } from '../auth/principal.ts';
import { SvcError } from '../errors.ts';
import { newTraceId } from '../observability/trace-id.ts';
import { SYSTEM_ACTOR } from '../policy/audit-event.ts';
import type { SchedulerService } from './scheduler-service.ts';

export const DEFAULT_FORECAST_FILE = path.join('scheduler', 'forecast.json');

export async function loadForecastFile(scheduler: SchedulerService, configured: string | null, stateDir: string): Promise<{ file: string; loaded: number } | undefined> {
  const file = configured ?? path.join(stateDir, DEFAULT_FORECAST_FILE);
  if (!existsSync(file)) {
    if (configured !== null) throw new SvcError('invalid_request', `scheduler.forecast_file ${file} does not exist`);
    return undefined;
  }
  let body: unknown;
  try {
    body = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SvcError('invalid_request', `scheduler forecast file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const ctx = { principal: makePrincipal(SYSTEM_ACTOR, ['admin']), traceId: newTraceId() };
  try {
    // The file's mtime is when the forecast was issued: its age (and staleness) survives restarts.
    const issuedAt = statSync(file).mtime;
    const result = await scheduler.loadForecast(ctx, Array.isArray(body) ? { source: 'forecast-file', points: body } : { source: 'forecast-file', ...(body as object) }, { issuedAt });
    return { file, loaded: result.loaded };
  } catch (err) {
    const e = SvcError.from(err);
    throw new SvcError('invalid_request', `scheduler forecast file ${file}: ${e.message}`, { cause: err });
  }
}
