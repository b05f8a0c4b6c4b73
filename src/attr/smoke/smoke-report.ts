/**
 * What every smoke run reports (`attr-smoke-report/v1`): one row per check,
 * `ok` only when every check passed. Printed as JSON by `attr-smoke`.
 */
import Type, { type Static } from 'typebox';

export const SMOKE_REPORT_SCHEMA_ID = 'attr-smoke-report/v1';

export const SMOKE_SUITES = ['service', 'load', 'provider', 'security'] as const;
export type SmokeSuite = (typeof SMOKE_SUITES)[number];

export const SmokeCheckSchema = Type.Object(
  { name: Type.String({ minLength: 1 }), status: Type.Union([Type.Literal('passed'), Type.Literal('failed')]), detail: Type.String() },
  { additionalProperties: false },
);
export type SmokeCheck = Static<typeof SmokeCheckSchema>;

/** Published as src/attr/smoke/schemas/attr-smoke-report.v1.schema.json (src/attr/service/service-schema-files.ts). */
export const SmokeReportSchema = Type.Object(
  {
    schema: Type.Literal(SMOKE_REPORT_SCHEMA_ID),
    suite: Type.Enum([...SMOKE_SUITES]),
    ok: Type.Boolean({ description: 'true only when there is at least one check and every check passed' }),
    service_url: Type.Union([Type.String(), Type.Null()]),
    duration_ms: Type.Number({ minimum: 0 }),
    checks: Type.Array(SmokeCheckSchema),
    figures: Type.Record(Type.String(), Type.Number(), { description: 'Suite-specific figures (load: requests, throughput, latency).' }),
  },
  { additionalProperties: false, $id: 'https://attr.invalid/schemas/attr-smoke-report-v1.json', title: SMOKE_REPORT_SCHEMA_ID },
);
export type SmokeReport = Static<typeof SmokeReportSchema>;

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
