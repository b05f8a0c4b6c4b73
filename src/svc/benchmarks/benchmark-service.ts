/**
 * Benchmarks a user runs against their own deployment (`/v1/benchmarks`,
 * `svc benchmark run`; docs/benchmarks.md, docs/decisions/094).
 *
 * - One run at a time, across every process on the database (the
 *   `running_slot` row); a second start answers `conflict` (retryable) with
 *   the running run's id.
 * - The suite runs in a child process at the lowest CPU priority (nice 19),
 *   on scratch storage, within a time and size budget: past
 *   `max_seconds` + a grace period it is killed and the run fails with
 *   `time_budget_exceeded`.
 * - Each start and end is a ledger event; results (JSON + Markdown) are kept
 *   in the run's row, their SHA-256 in the event.
 * - A run whose owning process stopped heartbeating is `interrupted` and
 *   frees the slot for the next start.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { newId } from '../../core/ids.ts';
import { requirePermission, resolveTenant } from '../auth/principal.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import type { BenchmarkRunRepository } from '../store/repositories/benchmark-runs.ts';
import { validate } from '../validation.ts';
import { type BenchmarkRun, BenchmarkRunListQuery, BenchmarkResultsQuery, StartBenchmarkRequest } from './benchmark-run.ts';
import { SUITE_INFO } from './suite-info.ts';
import { MAX_BUDGET_BYTES, MAX_BUDGET_SECONDS, type SuiteBudget, type SuiteId } from './suite.ts';
import type { SuiteMessage } from './suite-process.ts';

const SUITE_PROCESS = fileURLToPath(new URL('./suite-process.ts', import.meta.url));
/** Added to a run's `max_seconds` before it is killed: start-up of the scratch deployment and teardown. */
export const BUDGET_GRACE_MS = 30_000;
const HEARTBEAT_MS = 5_000;
/** A running row whose heartbeat is older than this belongs to a process that died. */
const STALE_MS = 60_000;
/** The lowest CPU priority (POSIX nice 19): a benchmark never competes with live requests on equal terms. */
const BENCHMARK_PRIORITY = os.constants.priority.PRIORITY_LOW;

export interface BenchmarkServiceDeps {
  repo: BenchmarkRunRepository;
  ledger: LedgerAppender;
  log: { warn(obj: Record<string, unknown>, msg: string): void };
  now?: () => Date;
  /** The child entry that runs a suite (default suite-process.ts; tests substitute one that hangs). */
  suiteProcess?: string;
  /** Grace after `max_seconds` before a run is killed (default {@link BUDGET_GRACE_MS}). */
  graceMs?: number;
}

export class BenchmarkService {
  readonly #d: BenchmarkServiceDeps;
  readonly #children = new Map<string, ChildProcess>();
  #closing = false;

  constructor(deps: BenchmarkServiceDeps) {
    this.#d = deps;
  }

  #now(): Date {
    return this.#d.now?.() ?? new Date();
  }

  listSuites(ctx: RequestContext) {
    requirePermission(ctx.principal, 'metrics:read');
    return {
      suites: Object.values(SUITE_INFO).map((s) => ({ suite: s.id, description: s.description, figures: s.figures, default_budget: s.default_budget })),
      max_budget: { max_seconds: MAX_BUDGET_SECONDS, max_bytes: MAX_BUDGET_BYTES },
    };
  }

  async start(ctx: RequestContext, raw: unknown): Promise<BenchmarkRun> {
    requirePermission(ctx.principal, 'benchmarks:run');
    // A run measures the deployment, not a tenant's data: tenant-bound keys cannot start one.
    if (ctx.principal.tenant !== undefined) throw new SvcError('forbidden', 'benchmark runs are deployment-wide; a tenant-bound key cannot start one');
    if (this.#closing) throw new SvcError('unavailable', 'the server is shutting down', { retryable: true });
    const input = validate(StartBenchmarkRequest, raw);
    const suite = SUITE_INFO[input.suite as SuiteId];
    const budget: SuiteBudget = { ...suite.default_budget, ...input.budget };
    await this.#expireStale(ctx);
    const at = this.#now().toISOString();
    const run: BenchmarkRun = {
      run_id: newId('bm'),
      suite: input.suite as SuiteId,
      state: 'running',
      budget,
      progress: { phase: 'starting', step: 0, steps: 1, updated_at: at },
      actor: ctx.principal.actor,
      started_at: at,
      heartbeat_at: at,
      finished_at: null,
      failure_reason: null,
      results_sha256: null,
    };
    if (!(await this.#d.repo.insertRunning(run))) {
      const running = await this.#d.repo.running();
      throw new SvcError('conflict', `benchmark run ${running?.run_id ?? '(unknown)'} is in progress; one run at a time`, {
        retryable: true,
        details: { running_run_id: running?.run_id ?? null, running_suite: running?.suite ?? null },
      });
    }
    await this.#d.ledger.append({
      type: 'benchmark.run.started',
      tenant: resolveTenant(ctx.principal, undefined),
      actor: ctx.principal.actor,
      trace_id: ctx.traceId,
      payload: { run_id: run.run_id, suite: run.suite, budget },
    });
    this.#launch(ctx, run);
    return run;
  }

  async get(ctx: RequestContext, id: string): Promise<BenchmarkRun> {
    requirePermission(ctx.principal, 'metrics:read');
    const run = await this.#d.repo.get(id);
    if (!run) throw new SvcError('not_found', `benchmark run ${id} not found`, { details: { run_id: id } });
    return run;
  }

  async list(ctx: RequestContext, raw: unknown): Promise<{ runs: BenchmarkRun[]; continuation_token: string | null }> {
    requirePermission(ctx.principal, 'metrics:read');
    const q = validate(BenchmarkRunListQuery, raw ?? {});
    const limit = q.limit ?? 20;
    const runs = await this.#d.repo.list(limit + 1, q.continuation_token);
    const page = runs.slice(0, limit);
    return { runs: page, continuation_token: runs.length > limit ? page[page.length - 1]!.run_id : null };
  }

  /** The stored report: JSON (the machine-readable figures and environment) or the Markdown table. */
  async results(ctx: RequestContext, id: string, raw: unknown): Promise<{ format: 'json'; body: unknown } | { format: 'markdown'; body: string }> {
    const run = await this.get(ctx, id);
    const { format = 'json' } = validate(BenchmarkResultsQuery, raw ?? {});
    const stored = await this.#d.repo.results(id);
    if (run.state !== 'completed' || !stored?.results || !stored.markdown) {
      throw new SvcError('conflict', `benchmark run ${id} has no results (${run.state}${run.failure_reason ? `: ${run.failure_reason}` : ''})`, {
        retryable: run.state === 'running',
        details: { run_id: id, state: run.state, failure_reason: run.failure_reason },
      });
    }
    return format === 'markdown' ? { format, body: stored.markdown } : { format, body: JSON.parse(stored.results) as unknown };
  }

  /** Stops a run in progress (server shutdown); it ends `failed` with `server_shutdown`. */
  async close(): Promise<void> {
    this.#closing = true;
    const ending = [...this.#children.entries()].map(async ([id, child]) => {
      child.kill('SIGKILL');
      await this.#end(undefined, id, { state: 'failed', reason: 'server_shutdown' });
    });
    await Promise.all(ending);
  }

  async #expireStale(ctx: RequestContext): Promise<void> {
    const running = await this.#d.repo.running();
    if (!running || this.#children.has(running.run_id)) return;
    if (this.#now().getTime() - Date.parse(running.heartbeat_at) < STALE_MS) return;
    await this.#end(ctx, running.run_id, { state: 'failed', reason: 'interrupted' }, running.suite);
  }

  #launch(ctx: RequestContext, run: BenchmarkRun): void {
    const child = fork(this.#d.suiteProcess ?? SUITE_PROCESS, [run.suite, JSON.stringify(run.budget)], { execArgv: [], stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
    this.#children.set(run.run_id, child);
    try {
      if (child.pid !== undefined) os.setPriority(child.pid, BENCHMARK_PRIORITY);
    } catch (err) {
      this.#d.log.warn({ event_type: 'benchmark.priority_not_lowered', run_id: run.run_id, error: String(err) }, 'could not lower the benchmark process priority');
    }
    // Keep the child's last stderr lines (bounded) for the failure reason's log line; never sent to clients.
    let stderrTail = '';
    child.stderr?.on('data', (b: Buffer) => (stderrTail = (stderrTail + b.toString('utf8')).slice(-2000)));
    let finished = false;
    const finish = (end: { state: 'completed' | 'failed'; reason?: string; report?: unknown; markdown?: string }) => {
      if (finished) return;
      finished = true;
      clearTimeout(budgetTimer);
      clearInterval(heartbeat);
      this.#children.delete(run.run_id);
      if (end.state === 'failed' && stderrTail) this.#d.log.warn({ event_type: 'benchmark.run.failed', run_id: run.run_id, reason: end.reason, stderr_tail: stderrTail }, 'benchmark run failed');
      void this.#end(ctx, run.run_id, end, run.suite).catch((err: unknown) => this.#d.log.warn({ event_type: 'benchmark.run.end_failed', run_id: run.run_id, error: String(err) }, 'could not record the end of a benchmark run'));
    };
    let progress = run.progress;
    const heartbeat = setInterval(() => void this.#d.repo.heartbeat(run.run_id, progress, this.#now().toISOString()).catch(() => undefined), HEARTBEAT_MS);
    heartbeat.unref();
    const budgetTimer = setTimeout(() => {
      child.kill('SIGKILL');
      finish({ state: 'failed', reason: 'time_budget_exceeded' });
    }, run.budget.max_seconds * 1000 + (this.#d.graceMs ?? BUDGET_GRACE_MS));
    budgetTimer.unref();
    child.on('message', (m: SuiteMessage) => {
      if (m.type === 'progress') {
        progress = { phase: m.phase, step: m.step, steps: m.steps, updated_at: this.#now().toISOString() };
        void this.#d.repo.heartbeat(run.run_id, progress, progress.updated_at!).catch(() => undefined);
      } else if (m.type === 'report') finish({ state: 'completed', report: m.report, markdown: m.markdown });
      else finish({ state: 'failed', reason: 'suite_error' });
    });
    child.on('exit', () => finish({ state: 'failed', reason: 'process_exited' }));
    child.on('error', () => finish({ state: 'failed', reason: 'process_exited' }));
  }

  async #end(ctx: RequestContext | undefined, id: string, end: { state: 'completed' | 'failed'; reason?: string; report?: unknown; markdown?: string }, suite?: string): Promise<void> {
    const results = end.report === undefined ? null : JSON.stringify(end.report);
    const sha = results === null ? null : createHash('sha256').update(results).digest('hex');
    const finishedAt = this.#now().toISOString();
    const changed = await this.#d.repo.finish(id, { state: end.state, finished_at: finishedAt, failure_reason: end.reason ?? null, results, markdown: end.markdown ?? null, results_sha256: sha });
    if (!changed) return;
    await this.#d.ledger.append({
      type: 'benchmark.run.completed',
      tenant: ctx ? resolveTenant(ctx.principal, undefined) : 'default',
      actor: ctx?.principal.actor ?? 'svc',
      ...(ctx?.traceId ? { trace_id: ctx.traceId } : {}),
      payload: { run_id: id, suite: suite ?? null, state: end.state, failure_reason: end.reason ?? null, results_sha256: sha },
    });
  }
}
