/**
 * `npm run bench -- scheduler [--jobs N] [--claim-jobs N]`: the energy-aware scheduler.
 *
 * 1. Quality, on a month of synthetic hourly intensity (bench/scheduler/synthetic-grid.ts says how it is made):
 *    estimated emissions of run-at-earliest (the baseline), of svc's plans made on a forecast with realistic error,
 *    and of an oracle that plans on the true trace — all evaluated on the true trace — for N jobs (default 10,000);
 *    the fraction of the oracle's saving svc achieves; missed deadlines (must be 0).
 * 2. Planning time per job through the real domain service on SQLite (validation, plan, insert, ledger events),
 *    while the N jobs are pending, and plan previews with N pending.
 * 3. Claim throughput: two processes on PostgreSQL (SVC_BENCH_DATABASE_URL or SVC_TEST_DATABASE_URL) claiming the
 *    same due jobs with FOR UPDATE SKIP LOCKED: jobs/s, and each job started exactly once.
 * All gCO2 figures are estimates on synthetic data.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { LedgerAppender } from '../../src/svc/ledger/appender.ts';
import { meanIntensity, plan } from '../../src/svc/scheduler/planner.ts';
import { SchedulerService } from '../../src/svc/scheduler/scheduler-service.ts';
import { openStore } from '../../src/svc/store/store.ts';
import { type BenchReport, round, summarize } from '../report.ts';
import { jobMix, perturbedForecast, syntheticTrace } from '../scheduler/synthetic-grid.ts';

const H = 3_600_000;
const HOURS = 30 * 24;
const ZONE = 'DE';
const here = path.dirname(fileURLToPath(import.meta.url));

function arg(args: string[], name: string, fallback: number): number {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
}

function emissions(trace: Parameters<typeof meanIntensity>[0], start: number, durationMs: number, energyKwh: number): number {
  const mean = meanIntensity(trace, start, durationMs);
  if (mean === null) throw new Error('trace does not cover a run');
  return mean * energyKwh;
}

/** 1. Baseline vs svc (forecast with error) vs oracle, evaluated on the true trace. */
function quality(jobs: number) {
  const monthStart = Date.UTC(2026, 0, 5); // a Monday
  const trace = syntheticTrace(ZONE, monthStart, HOURS, 42);
  const mix = jobMix(jobs, monthStart, HOURS, 7);
  let baseline = 0;
  let svc = 0;
  let oracle = 0;
  let missed = 0;
  let shifted = 0;
  mix.forEach((job, i) => {
    // The forecast svc plans on is issued at the job's submission (its earliest start), with error growing with lead time.
    const forecast = perturbedForecast(trace, job.earliest, 1000 + i);
    const input = { earliest: job.earliest, deadline: job.deadline, durationMs: job.durationMs, energyKwh: job.energyKwh };
    const svcStart = plan({ ...input, segments: forecast }).start;
    const oracleStart = plan({ ...input, segments: trace }).start;
    if (svcStart + job.durationMs > job.deadline || svcStart < job.earliest) missed++;
    if (svcStart !== job.earliest) shifted++;
    baseline += emissions(trace, job.earliest, job.durationMs, job.energyKwh);
    svc += emissions(trace, svcStart, job.durationMs, job.energyKwh);
    oracle += emissions(trace, oracleStart, job.durationMs, job.energyKwh);
  });
  return { baseline, svc, oracle, missed, shifted, jobs: mix.length };
}

/** 2. Planning through the domain service on SQLite, with N jobs pending. */
async function planningLatency(jobs: number, dir: string) {
  const store = await openStore({ stateDir: dir });
  const ledger = new LedgerAppender(store.ledger);
  const scheduler = new SchedulerService({ repository: store.schedulerJobs, audit: ledger, shiftingDisabled: () => false });
  const ctx = { principal: makePrincipal('bench', ['admin']), traceId: 'bench' };
  const start = Math.ceil(Date.now() / H) * H;
  const trace = syntheticTrace(ZONE, start, HOURS, 42);
  await scheduler.loadForecast(ctx, { source: 'bench-synthetic', points: trace.map((s) => ({ zone: ZONE, start: new Date(s.start).toISOString(), end: new Date(s.end).toISOString(), gco2_per_kwh: round(s.gco2PerKwh, 2) })) });
  const mix = jobMix(jobs, start, HOURS, 11);
  const body = (j: (typeof mix)[number]) => ({
    tenant: `t${j.earliest % 7}`,
    earliest_start: new Date(j.earliest).toISOString(),
    deadline: new Date(j.deadline).toISOString(),
    duration_seconds: j.durationMs / 1000,
    energy_kwh: j.energyKwh,
    zone: ZONE,
  });
  const create: number[] = [];
  for (const j of mix) {
    const t = performance.now();
    await scheduler.create(ctx, body(j));
    create.push(performance.now() - t);
  }
  const preview: number[] = [];
  for (const j of mix.slice(0, 1000)) {
    const t = performance.now();
    await scheduler.preview(ctx, body(j));
    preview.push(performance.now() - t);
  }
  await ledger.drained();
  await store.close();
  return { create: summarize(create), preview: summarize(preview) };
}

/** 3. Two processes claiming the same due jobs on PostgreSQL. */
async function claimThroughput(url: string | undefined, count: number) {
  if (!url) return { skipped: 'no PostgreSQL: set SVC_BENCH_DATABASE_URL (or SVC_TEST_DATABASE_URL)' } as const;
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  try {
    const store = await openStore({ databaseUrl: url, stateDir: os.tmpdir(), pgSchema: schema });
    const scheduler = new SchedulerService({ repository: store.schedulerJobs, audit: { append: async () => undefined } as never, shiftingDisabled: () => false });
    const ctx = { principal: makePrincipal('bench', ['admin']), traceId: 'bench' };
    const deadline = new Date(Date.now() + 6 * H).toISOString();
    for (let i = 0; i < count; i++) await scheduler.create(ctx, { tenant: `t${i % 5}`, deadline, duration_seconds: 60, energy_kwh: 1, zone: ZONE, mode: 'observe' });
    await store.close();
    const worker = path.join(here, '../scheduler/claim-worker.ts');
    const t = performance.now();
    const outputs = await Promise.all(
      ['proc-a', 'proc-b'].map(
        (label) =>
          new Promise<{ label: string; started: string[] }>((resolve, reject) => {
            const child = spawn(process.execPath, [worker, url, schema, label], { stdio: ['ignore', 'pipe', 'inherit'] });
            let out = '';
            child.stdout.on('data', (d) => (out += d));
            child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as { label: string; started: string[] }) : reject(new Error(`${label} exited ${code}`))));
          }),
      ),
    );
    const seconds = (performance.now() - t) / 1000;
    const all = outputs.flatMap((o) => o.started);
    return { jobs: count, seconds, perSecond: count / seconds, startedTotal: all.length, unique: new Set(all).size, perProcess: outputs.map((o) => o.started.length) };
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

export default async function run(args: string[]): Promise<BenchReport> {
  const jobs = arg(args, '--jobs', 10_000);
  const claimJobs = arg(args, '--claim-jobs', 5_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-scheduler-'));
  try {
    const q = quality(jobs);
    const latency = await planningLatency(jobs, dir);
    const claim = await claimThroughput(process.env.SVC_BENCH_DATABASE_URL ?? process.env.SVC_TEST_DATABASE_URL, claimJobs);
    const saving = q.baseline - q.svc;
    const oracleSaving = q.baseline - q.oracle;
    const results = {
      estimate: true,
      data: 'synthetic month of hourly intensity (bench/scheduler/synthetic-grid.ts), zone DE level from @tgwf/co2',
      jobs: q.jobs,
      jobs_shifted: q.shifted,
      estimated_kg_co2: { run_at_earliest: round(q.baseline / 1000), svc_plans: round(q.svc / 1000), oracle: round(q.oracle / 1000) },
      estimated_saving_vs_baseline: { svc: round(saving / q.baseline), oracle: round(oracleSaving / q.baseline) },
      fraction_of_oracle_saving: round(saving / oracleSaving),
      missed_deadlines: q.missed,
      create_ms_with_pending: { p50: round(latency.create.p50), p95: round(latency.create.p95) },
      preview_ms_with_10k_pending: { p50: round(latency.preview.p50), p95: round(latency.preview.p95) },
      claim: 'skipped' in claim ? { skipped: claim.skipped } : { jobs: claim.jobs, per_s: Math.round(claim.perSecond), started_total: claim.startedTotal, unique: claim.unique, per_process: claim.perProcess },
      targets: { missed_deadlines_zero: q.missed === 0, claim_exactly_once: 'skipped' in claim ? null : claim.startedTotal === claim.jobs && claim.unique === claim.jobs },
    };
    return {
      suite: 'scheduler',
      results,
      table: {
        columns: ['measure', 'value', 'target'],
        rows: [
          [`estimated kg CO2, ${q.jobs.toLocaleString('en')} jobs: run at earliest (baseline)`, results.estimated_kg_co2.run_at_earliest, '—'],
          ['estimated kg CO2: svc plans (forecast with realistic error)', results.estimated_kg_co2.svc_plans, '—'],
          ['estimated kg CO2: oracle (plans on the true trace)', results.estimated_kg_co2.oracle, '—'],
          ['estimated saving vs baseline: svc / oracle', `${round(100 * results.estimated_saving_vs_baseline.svc, 1)} % / ${round(100 * results.estimated_saving_vs_baseline.oracle, 1)} %`, '—'],
          ["fraction of the oracle's saving svc achieves", results.fraction_of_oracle_saving, '—'],
          ['missed deadlines', q.missed, '0'],
          ['jobs shifted', q.shifted, '—'],
          [`create p50 / p95 (ms), SQLite, up to ${q.jobs.toLocaleString('en')} pending`, `${results.create_ms_with_pending.p50} / ${results.create_ms_with_pending.p95}`, '—'],
          [`plan preview p50 / p95 (ms), ${q.jobs.toLocaleString('en')} pending`, `${results.preview_ms_with_10k_pending.p50} / ${results.preview_ms_with_10k_pending.p95}`, '—'],
          'skipped' in claim
            ? ['claim throughput, two processes on PostgreSQL', `skipped: ${claim.skipped}`, 'exactly once']
            : [`claim throughput, two processes on PostgreSQL (${claim.jobs.toLocaleString('en')} due jobs)`, `${Math.round(claim.perSecond)} jobs/s; started ${claim.startedTotal}, unique ${claim.unique} (${claim.perProcess.join(' + ')})`, 'exactly once'],
        ],
      },
      notes: [
        'All gCO2 figures are estimates on synthetic data: a month of hourly intensity built from the @tgwf/co2 annual average for DE, a typical daily profile, a weekend dip and AR(1) weather (bench/scheduler/synthetic-grid.ts). svc plans on that trace with forecast error growing with lead time (4 % + 0.3 %/h, at most 20 %); all plans are evaluated on the true trace.',
        'Planning latency is the domain call (validation, plan over the loaded forecast, insert, two ledger events) on SQLite synchronous=FULL on this machine.',
      ],
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
