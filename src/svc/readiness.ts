/**
 * Readiness (`/readyz`): every check must pass, otherwise 503 with the
 * failing checks and their reasons. Capabilities add checks here.
 */
import type { SvcApp } from './app.ts';
import { rolloutReadinessDetail } from './rollout/rollout-service.ts';
import { migrationsComplete } from './store/migrate.ts';

export interface ReadinessCheck {
  name: string;
  ok: boolean;
  detail?: string;
}

export interface ReadinessReport {
  ready: boolean;
  checks: ReadinessCheck[];
}

async function check(name: string, fn: () => Promise<string | undefined>): Promise<ReadinessCheck> {
  try {
    const detail = await fn();
    return detail === undefined ? { name, ok: true } : { name, ok: true, detail };
  } catch (err) {
    return { name, ok: false, detail: err instanceof Error ? err.message : String(err) };
  }
}

export async function checkReadiness(app: SvcApp): Promise<ReadinessReport> {
  const checks = await Promise.all([
    check('storage', async () => {
      await app.store.db.get('SELECT 1 AS ok');
      return app.databaseDescription;
    }),
    check('migrations', async () => {
      if (!(await migrationsComplete(app.store.db))) throw new Error('migrations pending');
      return undefined;
    }),
    check('policy_bundle', async () => {
      const b = app.policy.engine.activeBundle();
      return `${b.name}@${b.version} ${b.hash.slice(0, 12)}`;
    }),
    check('chunk_store', async () => {
      await app.objects.chunkBackend.probe();
      return app.objects.chunkBackend.location;
    }),
    // Informational: set-aside AI records need an operator (they also count as manifest write failures, a critical
    // alert), but this process still serves correctly, so they do not take it out of a load balancer.
    check('ai_record_journal', async () => {
      const j = await app.store.aiRecords.status();
      return j.failed > 0 ? `${j.failed} AI request record set(s) could not be written (kept in ai_record_journal; see docs/observability.md and docs/decisions/141); ${j.pending} pending` : undefined;
    }),
    // Informational: a tripped guardrail or a rollback switch degrades optimisation, not availability.
    check('rollout', async () => rolloutReadinessDetail(app.rollout.readiness())),
  ]);
  return { ready: checks.every((c) => c.ok), checks };
}
