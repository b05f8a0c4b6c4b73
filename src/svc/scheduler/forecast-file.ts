/**
 * The scheduler's forecast file (`scheduler.forecast_file`, default
 * `<state_dir>/scheduler/forecast.json` when it exists): operator forecast
 * points loaded at start-up, again whenever the file changes (its mtime or
 * size, checked every `forecast_file_poll_seconds`), on SIGHUP and on
 * POST /v1/scheduler/forecasts/reload. Always through the same domain function
 * as POST /v1/scheduler/forecasts, so the same validation applies and scheduled
 * jobs of those zones are re-planned; the file's mtime is the forecast's issue
 * time. A file that does not parse or validate loads nothing: at start-up it
 * stops the start with a configuration error naming the file; later it is
 * reported (400 to the caller, a log line for a change or SIGHUP) and the
 * points loaded before stay.
 */
import { existsSync, readFileSync, statSync, unwatchFile, watchFile, type Stats } from 'node:fs';
import path from 'node:path';
import { makePrincipal, requirePermission } from '../auth/principal.ts';
import { SvcError } from '../errors.ts';
import { newTraceId } from '../observability/trace-id.ts';
import type { DomainContext } from '../policy/audit-event.ts';
import { SYSTEM_ACTOR } from '../policy/audit-event.ts';
import type { SchedulerService } from './scheduler-service.ts';

export const DEFAULT_FORECAST_FILE = path.join('scheduler', 'forecast.json');

export interface ForecastFileLoad {
  file: string;
  loaded: number;
  skipped: number;
  zones: string[];
  replanned: number;
  /** The file's mtime: when the forecast was issued. */
  issued_at: string;
}

export type ForecastFileEvent = { trigger: 'change' | 'signal'; result: ForecastFileLoad } | { trigger: 'change' | 'signal'; error: SvcError };

export class ForecastFileService {
  readonly file: string;
  readonly #configured: boolean;
  readonly #scheduler: SchedulerService;
  readonly #pollMs: number | null;
  readonly #onEvent: (e: ForecastFileEvent) => void;
  /** Loads run one at a time, in order. */
  #queue: Promise<unknown> = Promise.resolve();
  #watching = false;

  constructor(o: { scheduler: SchedulerService; configured: string | null; stateDir: string; pollSeconds: number | null; onEvent?: (e: ForecastFileEvent) => void }) {
    this.file = o.configured ?? path.join(o.stateDir, DEFAULT_FORECAST_FILE);
    this.#configured = o.configured !== null;
    this.#scheduler = o.scheduler;
    this.#pollMs = o.pollSeconds === null ? null : o.pollSeconds * 1000;
    this.#onEvent = o.onEvent ?? (() => undefined);
  }

  /** At start-up: loads the file when it exists (a configured file must). Errors are configuration errors. */
  async loadAtStartup(): Promise<ForecastFileLoad | undefined> {
    if (!existsSync(this.file)) {
      if (this.#configured) throw new SvcError('invalid_request', `scheduler.forecast_file ${this.file} does not exist`);
      return undefined;
    }
    return this.#serial(() => this.#load(systemContext()));
  }

  /** Re-reads the file now (admin:switches, as loading points by hand); a bad file answers 400 and loads nothing. */
  async reload(ctx: DomainContext): Promise<ForecastFileLoad> {
    requirePermission(ctx.principal, 'admin:switches');
    if (!existsSync(this.file)) throw new SvcError('invalid_request', `no scheduler forecast file at ${this.file}`);
    return this.#serial(() => this.#load(ctx));
  }

  /** SIGHUP: reload when the file exists; the outcome goes to `onEvent`. */
  reloadOnSignal(): Promise<void> {
    if (!existsSync(this.file)) return Promise.resolve();
    return this.#serial(() => this.#load(systemContext())).then(
      (result) => this.#onEvent({ trigger: 'signal', result }),
      (err: unknown) => this.#onEvent({ trigger: 'signal', error: SvcError.from(err) }),
    );
  }

  /** Watches the file (polling its mtime and size) when `forecast_file_poll_seconds` is set; a removed file is ignored. */
  watch(): void {
    if (this.#pollMs === null || this.#watching) return;
    this.#watching = true;
    watchFile(this.file, { interval: this.#pollMs, persistent: false }, (curr: Stats, prev: Stats) => {
      if (curr.mtimeMs === 0 || (curr.mtimeMs === prev.mtimeMs && curr.size === prev.size)) return;
      void this.#serial(() => this.#load(systemContext())).then(
        (result) => this.#onEvent({ trigger: 'change', result }),
        (err: unknown) => this.#onEvent({ trigger: 'change', error: SvcError.from(err) }),
      );
    });
  }

  /** Stops watching and waits for a load in progress. */
  async stop(): Promise<void> {
    if (this.#watching) unwatchFile(this.file);
    this.#watching = false;
    await this.#queue.catch(() => undefined);
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.#queue.catch(() => undefined).then(fn);
    this.#queue = next;
    return next;
  }

  async #load(ctx: DomainContext): Promise<ForecastFileLoad> {
    const file = this.file;
    let text: string;
    let issuedAt: Date;
    try {
      // The mtime is read before the content: a write landing in between makes the next change check load again.
      issuedAt = statSync(file).mtime;
      text = readFileSync(file, 'utf8');
    } catch (err) {
      throw new SvcError('invalid_request', `scheduler forecast file ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (err) {
      throw new SvcError('invalid_request', `scheduler forecast file ${file} is not valid JSON: ${(err as Error).message}`);
    }
    if (body === null || typeof body !== 'object') throw new SvcError('invalid_request', `scheduler forecast file ${file}: expected {source?, points:[…]} or an array of points`);
    try {
      const r = await this.#scheduler.loadForecast(ctx, Array.isArray(body) ? { source: 'forecast-file', points: body } : { source: 'forecast-file', ...body }, { issuedAt });
      return { file, loaded: r.loaded, skipped: r.skipped, zones: r.zones, replanned: r.replanned, issued_at: issuedAt.toISOString() };
    } catch (err) {
      // Validation failures name the file; anything else (the database) is not the file's fault and passes through.
      if (!(err instanceof SvcError) || err.code !== 'invalid_request') throw err;
      throw new SvcError('invalid_request', `scheduler forecast file ${file}: ${err.message}`, { cause: err, ...(err.details ? { details: err.details } : {}) });
    }
  }
}

function systemContext(): DomainContext {
  return { principal: makePrincipal(SYSTEM_ACTOR, ['admin']), traceId: newTraceId() };
}
