/**
 * The runner loop: one `tick` at a time per process, on an unref'd timer so
 * it never keeps the process alive; `stop` waits for the pass in flight so
 * the store is not closed under it. SVC_SCHEDULER_TICK_MS=0 disables it.
 */
import type { OpLog } from '../logs/oplog.ts';
import type { SchedulerService } from './scheduler-service.ts';

export interface SchedulerRunner {
  stop(): Promise<void>;
}

export function startSchedulerRunner(scheduler: SchedulerService, log: OpLog, tickMs: number): SchedulerRunner {
  if (!(tickMs > 0)) return { stop: async () => undefined };
  let inFlight: Promise<unknown> = Promise.resolve();
  let stopped = false;
  const timer = setInterval(() => {
    if (stopped) return;
    inFlight = inFlight.then(() =>
      stopped ? undefined : scheduler.tick().catch((err: unknown) => log.warn({ event_type: 'scheduler.tick_failed', err: err instanceof Error ? err.message : String(err) }, 'scheduler tick failed')),
    );
  }, tickMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await inFlight;
    },
  };
}
