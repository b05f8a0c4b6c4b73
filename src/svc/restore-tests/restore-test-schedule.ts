/**
 * Periodic restore tests in `svc serve` (config `restore_tests.interval_minutes`,
 * `restore_tests.kinds`; 0 = on demand only). A plain interval rather than a
 * scheduler job: restore tests are hygiene with no deadline and no energy
 * flexibility worth planning (docs/decisions/095). Runs as the principal
 * `svc-restore-tests` over every tenant; one round at a time; a failed kind
 * is logged as an alert line (the rehydration alert and quarantine come from
 * the restore itself).
 */
import { makePrincipal } from '../auth/principal.ts';
import type { SvcConfig } from '../config/schema.ts';
import { newTraceId } from '../observability/trace-id.ts';
import type { RestoreTestService } from './restore-test-service.ts';

interface AlertLog {
  alert(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
}

export function startRestoreTestSchedule(service: RestoreTestService, config: SvcConfig['restore_tests'], log: AlertLog): { stop(): Promise<void> } {
  const minutes = config?.interval_minutes ?? 0;
  if (minutes <= 0) return { stop: async () => undefined };
  const principal = makePrincipal('svc-restore-tests', ['admin']);
  let round: Promise<void> = Promise.resolve();
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    round = (async () => {
      for (const kind of config?.kinds ?? []) {
        try {
          const r = await service.run({ principal, traceId: newTraceId() }, { kind });
          if (r.status === 'failed') log.alert({ event_type: 'restore_test.failed', kind, run_id: r.run_id, failed: r.failures.length }, 'scheduled restore test failed');
        } catch (err) {
          log.warn({ event_type: 'restore_test.error', kind, error_code: (err as { code?: string }).code ?? 'internal' }, 'scheduled restore test could not run');
        }
      }
    })().finally(() => (running = false));
  }, minutes * 60_000);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await round;
    },
  };
}
