/**
 * Scheduler job records and forecast points (SQLite and PostgreSQL).
 * Claiming is one conditional UPDATE: on PostgreSQL the inner SELECT takes
 * row locks with FOR UPDATE SKIP LOCKED, so concurrent processes claim
 * disjoint jobs; a lease lets another process reclaim work whose owner died.
 * SQLite has one writer (BEGIN IMMEDIATE), which gives the same guarantee
 * inside one process.
 */
import type { ForecastPoint, JobResult, JobState, SchedulerJob } from '../../scheduler/job-record.ts';
import type { Db } from '../db.ts';

type Row = Omit<SchedulerJob, 'metadata' | 'work_unit_ids' | 'result'> & { metadata: string; work_unit_ids: string | null; result: string | null };

const COLUMNS =
  'id, tenant, kind, state, mode, zone, priority, work_unit_id, earliest_start, deadline, duration_s, energy_kwh, metadata, baseline_start, planned_start, run_at, baseline_gco2, planned_gco2, shift_minutes, forecast_source, forecast_age_s, plan_reason, lease_owner, lease_expires_at, started_at, completed_at, outcome, actor, created_at, updated_at, webhook_url, work_unit_ids, result, contract';

function fromRow(r: Row): SchedulerJob {
  return {
    ...r,
    priority: Number(r.priority),
    duration_s: Number(r.duration_s),
    energy_kwh: Number(r.energy_kwh),
    baseline_gco2: r.baseline_gco2 === null ? null : Number(r.baseline_gco2),
    planned_gco2: r.planned_gco2 === null ? null : Number(r.planned_gco2),
    shift_minutes: Number(r.shift_minutes),
    forecast_age_s: r.forecast_age_s === null ? null : Number(r.forecast_age_s),
    metadata: JSON.parse(r.metadata) as Record<string, string>,
    work_unit_ids: r.work_unit_ids ? (JSON.parse(r.work_unit_ids) as string[]) : [],
    result: r.result ? (JSON.parse(r.result) as JobResult) : null,
  };
}

export interface JobListFilter {
  tenant?: string | undefined;
  state?: JobState | undefined;
  zone?: string | undefined;
  after?: string | undefined;
  limit: number;
}

export interface StoredForecastPoint extends ForecastPoint {
  source: string;
  loaded_at: string;
}

/** Fields a re-plan rewrites. */
export type PlanFields = Pick<SchedulerJob, 'planned_start' | 'run_at' | 'baseline_gco2' | 'planned_gco2' | 'shift_minutes' | 'forecast_source' | 'forecast_age_s' | 'plan_reason'>;

export class SchedulerJobRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(j: SchedulerJob): Promise<void> {
    await this.#db.run(
      `INSERT INTO scheduler_jobs (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34)`,
      [
        j.id, j.tenant, j.kind, j.state, j.mode, j.zone, j.priority, j.work_unit_id, j.earliest_start, j.deadline, j.duration_s, j.energy_kwh,
        JSON.stringify(j.metadata), j.baseline_start, j.planned_start, j.run_at, j.baseline_gco2, j.planned_gco2, j.shift_minutes, j.forecast_source,
        j.forecast_age_s, j.plan_reason, j.lease_owner, j.lease_expires_at, j.started_at, j.completed_at, j.outcome, j.actor, j.created_at, j.updated_at, j.webhook_url,
        j.work_unit_ids.length > 0 ? JSON.stringify(j.work_unit_ids) : null, j.result === null ? null : JSON.stringify(j.result), j.contract,
      ],
    );
  }

  async get(id: string): Promise<SchedulerJob | undefined> {
    const row = await this.#db.get<Row>(`SELECT ${COLUMNS} FROM scheduler_jobs WHERE id = $1`, [id]);
    return row ? fromRow(row) : undefined;
  }

  async list(f: JobListFilter): Promise<SchedulerJob[]> {
    const rows = await this.#db.all<Row>(
      `SELECT ${COLUMNS} FROM scheduler_jobs WHERE ($1 = '' OR tenant = $1) AND ($2 = '' OR state = $2) AND ($3 = '' OR zone = $3) AND id > $4 ORDER BY id LIMIT $5`,
      [f.tenant ?? '', f.state ?? '', f.zone ?? '', f.after ?? '', f.limit],
    );
    return rows.map(fromRow);
  }

  /**
   * Moves a job from one of `from` to `to`; undefined when it was not in one of them (a concurrent transition won),
   * or, with `leaseOwner`, when that process no longer holds its lease (another one took the job over).
   */
  async transition(
    id: string,
    from: readonly JobState[],
    to: JobState,
    at: string,
    extra: { completed_at?: string; outcome?: string; result?: JobResult; leaseOwner?: string } = {},
  ): Promise<SchedulerJob | undefined> {
    const placeholders = from.map((_, i) => `$${i + 8}`).join(', ');
    const row = await this.#db.get<Row>(
      `UPDATE scheduler_jobs SET state = $1, updated_at = $2, completed_at = COALESCE($3, completed_at), outcome = COALESCE($4, outcome), result = COALESCE($5, result), lease_owner = NULL, lease_expires_at = NULL
       WHERE id = $6 AND ($7 = '' OR lease_owner = $7) AND state IN (${placeholders}) RETURNING ${COLUMNS}`,
      [to, at, extra.completed_at ?? null, extra.outcome ?? null, extra.result === undefined ? null : JSON.stringify(extra.result), id, extra.leaseOwner ?? '', ...from],
    );
    return row ? fromRow(row) : undefined;
  }

  /** Extends the lease of a job this process is running; false when it no longer holds it. */
  async renewLease(id: string, owner: string, until: Date): Promise<boolean> {
    const r = await this.#db.run(`UPDATE scheduler_jobs SET lease_expires_at = $1 WHERE id = $2 AND lease_owner = $3 AND state = 'running'`, [until.toISOString(), id, owner]);
    return r.changes === 1;
  }

  /**
   * Running jobs nobody will finish become `failed`: an external job whose caller has not reported by its deadline
   * plus the grace (`reportCutoff` = now − grace; outcome `no_report`), and a job svc was running whose process died
   * (lease expired) after its deadline (outcome `interrupted`). Returns them.
   */
  async expireRunning(now: Date, reportCutoff: Date): Promise<SchedulerJob[]> {
    const at = now.toISOString();
    const lock = this.#db.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    const rows = await this.#db.all<Row>(
      `UPDATE scheduler_jobs SET state = 'failed', updated_at = $1, completed_at = $1, outcome = CASE WHEN kind = 'external' THEN 'no_report' ELSE 'interrupted' END,
         lease_owner = NULL, lease_expires_at = NULL
       WHERE state = 'running' AND id IN (
         SELECT id FROM scheduler_jobs WHERE state = 'running' AND (
           (kind = 'external' AND lease_expires_at IS NULL AND deadline < $2)
           OR (lease_expires_at IS NOT NULL AND lease_expires_at <= $1 AND deadline <= $1)
         ) ORDER BY deadline, id LIMIT 1000 ${lock}
       ) RETURNING ${COLUMNS}`,
      [at, reportCutoff.toISOString()],
    );
    return rows.map(fromRow);
  }

  /** Rewrites the plan of a still-scheduled job (re-plan on a newer forecast). */
  async replan(id: string, p: PlanFields, at: string): Promise<boolean> {
    const r = await this.#db.run(
      `UPDATE scheduler_jobs SET planned_start = $1, run_at = $2, baseline_gco2 = $3, planned_gco2 = $4, shift_minutes = $5, forecast_source = $6, forecast_age_s = $7, plan_reason = $8, updated_at = $9
       WHERE id = $10 AND state = 'scheduled'`,
      [p.planned_start, p.run_at, p.baseline_gco2, p.planned_gco2, p.shift_minutes, p.forecast_source, p.forecast_age_s, p.plan_reason, at, id],
    );
    return r.changes === 1;
  }

  /**
   * With shifting switched off (the rollback switch): scheduled jobs that would already be due without their shift
   * run at their baseline start now. Jobs whose baseline is still ahead keep their plan until then, so switching back
   * on in time leaves them shifted. Returns the moved jobs.
   */
  async unshiftDue(now: Date, limit = 1000): Promise<SchedulerJob[]> {
    const at = now.toISOString();
    const lock = this.#db.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    const rows = await this.#db.all<Row>(
      `UPDATE scheduler_jobs SET run_at = baseline_start, plan_reason = 'shifting_disabled', updated_at = $1
       WHERE state = 'scheduled' AND id IN (
         SELECT id FROM scheduler_jobs WHERE state = 'scheduled' AND run_at > baseline_start AND baseline_start <= $1 ORDER BY baseline_start, id LIMIT $2 ${lock}
       ) RETURNING ${COLUMNS}`,
      [at, limit],
    );
    return rows.map(fromRow);
  }

  /** Scheduled jobs in a zone not yet due (candidates for a re-plan). */
  async scheduledInZone(zone: string, after: string): Promise<SchedulerJob[]> {
    const rows = await this.#db.all<Row>(`SELECT ${COLUMNS} FROM scheduler_jobs WHERE state = 'scheduled' AND zone = $1 AND run_at > $2 ORDER BY id`, [zone, after]);
    return rows.map(fromRow);
  }

  /**
   * Scheduled jobs that can no longer finish by their deadline (their latest start,
   * deadline − duration, has passed): `missed`. Returns them.
   */
  async markMissed(now: Date): Promise<SchedulerJob[]> {
    const candidates = await this.#db.all<Row>(`SELECT ${COLUMNS} FROM scheduler_jobs WHERE state = 'scheduled' AND run_at <= $1 ORDER BY run_at LIMIT 1000`, [now.toISOString()]);
    const missed: SchedulerJob[] = [];
    for (const c of candidates.map(fromRow)) {
      if (Date.parse(c.deadline) - c.duration_s * 1000 >= now.getTime()) continue;
      const moved = await this.transition(c.id, ['scheduled'], 'missed', now.toISOString(), { completed_at: now.toISOString(), outcome: 'missed' });
      if (moved) missed.push(moved);
    }
    return missed;
  }

  /**
   * Claims up to `limit` due jobs for `owner` and marks them running with a lease.
   * Due = scheduled with run_at ≤ now, or running with an expired lease before its deadline (its owner died: a
   * `work_units` job in progress, or a start that was never announced). A taken-over job keeps its `started_at`.
   */
  async claimDue(owner: string, now: Date, leaseMs: number, limit: number): Promise<SchedulerJob[]> {
    const at = now.toISOString();
    const lease = new Date(now.getTime() + leaseMs).toISOString();
    const lock = this.#db.dialect === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    const rows = await this.#db.all<Row>(
      `UPDATE scheduler_jobs SET state = 'running', lease_owner = $1, lease_expires_at = $2, started_at = COALESCE(started_at, $3), updated_at = $3
       WHERE id IN (
         SELECT id FROM scheduler_jobs
         WHERE (state = 'scheduled' AND run_at <= $3) OR (state = 'running' AND lease_expires_at IS NOT NULL AND lease_expires_at <= $3 AND deadline > $3)
         ORDER BY run_at, id LIMIT $4 ${lock}
       ) RETURNING ${COLUMNS}`,
      [owner, lease, at, limit],
    );
    return rows.map(fromRow);
  }

  /**
   * Releases the lease once the start has been announced: an external job then
   * waits for its caller's completion report, which no lease should time out.
   */
  async releaseLease(id: string, owner: string): Promise<boolean> {
    const r = await this.#db.run(`UPDATE scheduler_jobs SET lease_owner = NULL, lease_expires_at = NULL WHERE id = $1 AND lease_owner = $2 AND state = 'running'`, [id, owner]);
    return r.changes === 1;
  }

  async countByState(): Promise<Record<string, number>> {
    const rows = await this.#db.all<{ state: string; n: number }>('SELECT state, COUNT(*) AS n FROM scheduler_jobs GROUP BY state');
    return Object.fromEntries(rows.map((r) => [r.state, Number(r.n)]));
  }

  /**
   * Stores forecast points so that, where forecasts overlap, the one issued last wins: a stored point of the zone
   * that overlaps a new point and was issued no later than `issuedAt` is replaced (dropped whole); a new point that
   * overlaps a point issued later is skipped. Points that ended before `pruneBefore` are deleted, and not stored
   * (skipped): plans never look back. The new points of one zone must not overlap each other (the domain checks), so the stored timeline stays
   * non-overlapping, as the planner needs. Writers are serialised across processes.
   */
  async replaceForecast(points: readonly ForecastPoint[], source: string, issuedAt: string, pruneBefore: string): Promise<{ stored: number; skipped: number }> {
    return this.#db.transaction(async (tx) => {
      await tx.lockChain('scheduler_forecast_points');
      let stored = 0;
      let skipped = 0;
      const zones = new Map<string, ForecastPoint[]>();
      for (const p of points) zones.set(p.zone, [...(zones.get(p.zone) ?? []), p]);
      for (const [zone, zonePoints] of zones) {
        const sorted = [...zonePoints].sort((a, b) => (a.start < b.start ? -1 : 1));
        await tx.run('DELETE FROM scheduler_forecast_points WHERE zone = $1 AND ends_at <= $2', [zone, pruneBefore]);
        const existing = await tx.all<{ starts_at: string; ends_at: string; loaded_at: string }>(
          'SELECT starts_at, ends_at, loaded_at FROM scheduler_forecast_points WHERE zone = $1 AND ends_at > $2 AND starts_at < $3 ORDER BY starts_at',
          [zone, sorted[0]!.start, sorted.reduce((m, p) => (p.end > m ? p.end : m), sorted[0]!.end)],
        );
        const replaced = new Set<string>();
        const keep: ForecastPoint[] = [];
        let first = 0;
        for (const p of sorted) {
          if (p.end <= pruneBefore) {
            skipped++;
            continue;
          }
          // Both lists are ordered by start; stored points ending before this one starts can be passed for good.
          while (first < existing.length && existing[first]!.ends_at <= p.start) first++;
          const overlapping: string[] = [];
          let newer = false;
          for (let k = first; k < existing.length && existing[k]!.starts_at < p.end; k++) {
            const e = existing[k]!;
            if (e.ends_at <= p.start) continue;
            if (e.loaded_at > issuedAt) newer = true;
            overlapping.push(e.starts_at);
          }
          if (newer) {
            skipped++;
            continue;
          }
          for (const s of overlapping) replaced.add(s);
          keep.push(p);
        }
        for (const s of replaced) await tx.run('DELETE FROM scheduler_forecast_points WHERE zone = $1 AND starts_at = $2', [zone, s]);
        for (const p of keep) {
          await tx.run(
            `INSERT INTO scheduler_forecast_points (zone, starts_at, ends_at, gco2_per_kwh, source, loaded_at) VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (zone, starts_at) DO UPDATE SET ends_at = excluded.ends_at, gco2_per_kwh = excluded.gco2_per_kwh, source = excluded.source, loaded_at = excluded.loaded_at`,
            [p.zone, p.start, p.end, p.gco2_per_kwh, source, issuedAt],
          );
          stored++;
        }
      }
      return { stored, skipped };
    });
  }

  /** Loaded points of a zone overlapping [from, to), by start. */
  async forecast(zone: string, from: string, to: string): Promise<StoredForecastPoint[]> {
    const rows = await this.#db.all<{ zone: string; starts_at: string; ends_at: string; gco2_per_kwh: number; source: string; loaded_at: string }>(
      'SELECT zone, starts_at, ends_at, gco2_per_kwh, source, loaded_at FROM scheduler_forecast_points WHERE zone = $1 AND ends_at > $2 AND starts_at < $3 ORDER BY starts_at',
      [zone, from, to],
    );
    return rows.map((r) => ({ zone: r.zone, start: r.starts_at, end: r.ends_at, gco2_per_kwh: Number(r.gco2_per_kwh), source: r.source, loaded_at: r.loaded_at }));
  }

  async hasForecast(zone: string): Promise<boolean> {
    return (await this.#db.get('SELECT 1 AS one FROM scheduler_forecast_points WHERE zone = $1 LIMIT 1', [zone])) !== undefined;
  }
}
