/**
 * What every smoke run reports (`attr-smoke-report/v1`): one row per check,
 * `ok` only when every check passed. Printed as JSON by `attr-smoke`.
 */
export const SMOKE_REPORT_SCHEMA_ID = 'attr-smoke-report/v1';

export type SmokeSuite = 'service' | 'load' | 'provider' | 'security';

export interface SmokeCheck {
  name: string;
  status: 'passed' | 'failed';
  detail: string;
}

export interface SmokeReport {
  schema: typeof SMOKE_REPORT_SCHEMA_ID;
  suite: SmokeSuite;
  ok: boolean;
  service_url: string | null;
  duration_ms: number;
  checks: SmokeCheck[];
  /** Suite-specific figures (load: requests, throughput, latency). */
  figures: Record<string, number>;
}

/** Collects checks; `expect` never throws so one failure does not hide the others. */
export class SmokeRecorder {
  readonly checks: SmokeCheck[] = [];
  readonly figures: Record<string, number> = {};

  expect(name: string, passed: boolean, detail: string): boolean {
    this.checks.push({ name, status: passed ? 'passed' : 'failed', detail });
    return passed;
  }

  /** Runs `fn`; an exception is recorded as a failed check instead of aborting the run. */
  async step(name: string, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (err) {
      this.expect(name, false, `threw: ${(err as Error).message}`);
    }
  }

  report(suite: SmokeSuite, serviceUrl: string | null, startedAt: number): SmokeReport {
    return {
      schema: SMOKE_REPORT_SCHEMA_ID,
      suite,
      ok: this.checks.length > 0 && this.checks.every((c) => c.status === 'passed'),
      service_url: serviceUrl,
      duration_ms: Math.round(performance.now() - startedAt),
      checks: this.checks,
      figures: this.figures,
    };
  }
}
