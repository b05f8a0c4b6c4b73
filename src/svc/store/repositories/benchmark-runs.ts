/** Benchmark run rows (src/svc/benchmarks). JSON columns are stored as text on both engines. */
import type { Db } from '../db.ts';
import type { BenchmarkRun, BenchmarkRunState } from '../../benchmarks/benchmark-run.ts';

interface Row {
  id: string;
  suite: string;
  state: BenchmarkRunState;
  budget: string;
  progress: string;
  actor: string;
  started_at: string;
  heartbeat_at: string;
  finished_at: string | null;
  failure_reason: string | null;
  results: string | null;
  markdown: string | null;
  results_sha256: string | null;
}

const SUMMARY_COLUMNS = 'id, suite, state, budget, progress, actor, started_at, heartbeat_at, finished_at, failure_reason, NULL AS results, NULL AS markdown, results_sha256';

function toRun(r: Row): BenchmarkRun {
  return {
    run_id: r.id,
    suite: r.suite as BenchmarkRun['suite'],
    state: r.state,
    budget: JSON.parse(r.budget) as BenchmarkRun['budget'],
    progress: JSON.parse(r.progress) as BenchmarkRun['progress'],
    actor: r.actor,
    started_at: r.started_at,
    heartbeat_at: r.heartbeat_at,
    finished_at: r.finished_at,
    failure_reason: r.failure_reason,
    results_sha256: r.results_sha256,
  };
}

export class BenchmarkRunRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Inserts a running run; false when another run holds the running slot (in any process). */
  async insertRunning(run: BenchmarkRun): Promise<boolean> {
    const r = await this.#db.run(
      `INSERT INTO benchmark_runs (id, suite, state, running_slot, budget, progress, actor, started_at, heartbeat_at)
       VALUES ($1, $2, 'running', 1, $3, $4, $5, $6, $7) ON CONFLICT (running_slot) DO NOTHING`,
      [run.run_id, run.suite, JSON.stringify(run.budget), JSON.stringify(run.progress), run.actor, run.started_at, run.heartbeat_at],
    );
    return r.changes === 1;
  }

  async running(): Promise<BenchmarkRun | undefined> {
    const r = await this.#db.get<Row>(`SELECT ${SUMMARY_COLUMNS} FROM benchmark_runs WHERE running_slot = 1`);
    return r ? toRun(r) : undefined;
  }

  async heartbeat(id: string, progress: BenchmarkRun['progress'], at: string): Promise<void> {
    await this.#db.run("UPDATE benchmark_runs SET progress = $1, heartbeat_at = $2 WHERE id = $3 AND state = 'running'", [JSON.stringify(progress), at, id]);
  }

  /** Ends a running run; false when it was no longer running (taken over as interrupted). */
  async finish(id: string, end: { state: 'completed' | 'failed'; finished_at: string; failure_reason: string | null; results: string | null; markdown: string | null; results_sha256: string | null }): Promise<boolean> {
    const r = await this.#db.run(
      `UPDATE benchmark_runs SET state = $1, running_slot = NULL, finished_at = $2, failure_reason = $3, results = $4, markdown = $5, results_sha256 = $6
       WHERE id = $7 AND state = 'running'`,
      [end.state, end.finished_at, end.failure_reason, end.results, end.markdown, end.results_sha256, id],
    );
    return r.changes === 1;
  }

  async get(id: string): Promise<BenchmarkRun | undefined> {
    const r = await this.#db.get<Row>(`SELECT ${SUMMARY_COLUMNS} FROM benchmark_runs WHERE id = $1`, [id]);
    return r ? toRun(r) : undefined;
  }

  async results(id: string): Promise<{ results: string | null; markdown: string | null } | undefined> {
    return this.#db.get<{ results: string | null; markdown: string | null }>('SELECT results, markdown FROM benchmark_runs WHERE id = $1', [id]);
  }

  /** Newest first, before the cursor id when given. */
  async list(limit: number, before?: string): Promise<BenchmarkRun[]> {
    const rows = before
      ? await this.#db.all<Row>(`SELECT ${SUMMARY_COLUMNS} FROM benchmark_runs WHERE id < $1 ORDER BY id DESC LIMIT $2`, [before, limit])
      : await this.#db.all<Row>(`SELECT ${SUMMARY_COLUMNS} FROM benchmark_runs ORDER BY id DESC LIMIT $1`, [limit]);
    return rows.map(toRun);
  }
}
