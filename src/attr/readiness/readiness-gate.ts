/**
 * The fail-closed readiness gate. `evaluate()` runs every check the spec
 * lists — service configuration, authentication hash, engine load and each
 * readiness artifact re-read from disk — plus the audit log and trust store.
 * An artifact passes only if it parses, matches its schema, was produced by
 * this process (`instance_id`), against this config and corpus, and says
 * `passed` / `admitted`; the readiness report must still match every
 * artifact's bytes, and the admission must still match the report's. So a
 * deleted, edited or stale artifact turns the service not-ready.
 *
 * Attribution routes consult `ready` (the last evaluation); /readyz and a
 * periodic timer re-evaluate.
 */
import { readFile } from 'node:fs/promises';
import { sha256Hex } from '../../core/hashing.ts';
import { configDocumentIssues } from '../config/service-config.ts';
import { compileChecker, type SchemaChecker } from '../config/schema-check.ts';
import { ARTIFACTS, type ArtifactName, type CheckResult } from './artifact-schemas.ts';
import type { ArtifactStore } from './artifact-store.ts';
import { footerSigningCheck, foundationChecks } from './produce-artifacts.ts';
import type { ReadinessInputs } from './readiness-inputs.ts';
import { validateTrustStoreFile } from '../trust-store/validate-trust-store.ts';
import type { TrustStoreValidationReport } from '../trust-store/trust-store-validation-report.ts';
import type { TSchema } from 'typebox';

/** Check names in report order; the first ten are the spec's list. */
export const READINESS_CHECKS = [
  'service_config',
  'auth_hash',
  'engine_load',
  'certification_report',
  'discovery_manifest',
  'provider_attribution_card',
  'production_readiness_report',
  'production_invocation_admission',
  'runtime_conformance_receipt',
  'source_grounded_response_receipt',
  'audit_log',
  'trust_store',
  'footer_signing',
] as const;

export interface ReadinessEvaluation {
  ready: boolean;
  checked_at: string;
  checks: CheckResult[];
}

type Artifact = Record<string, unknown> & { instance_id?: unknown; config_sha256?: unknown; corpus_sha256?: unknown; status?: unknown };

export class ReadinessGate {
  readonly #inputs: ReadinessInputs;
  readonly #store: ArtifactStore;
  readonly #checkers: Record<ArtifactName, SchemaChecker<TSchema>>;
  #last: ReadinessEvaluation;
  #onChange: ((ready: boolean) => void) | undefined;

  constructor(inputs: ReadinessInputs, store: ArtifactStore, options: { onChange?: (ready: boolean) => void } = {}) {
    this.#inputs = inputs;
    this.#store = store;
    this.#onChange = options.onChange;
    this.#checkers = Object.fromEntries(Object.entries(ARTIFACTS).map(([name, a]) => [name, compileChecker(a.schema)])) as Record<ArtifactName, SchemaChecker<TSchema>>;
    this.#last = { ready: false, checked_at: inputs.now().toISOString(), checks: [] };
  }

  /** The result of the last evaluation; false until the first one passes. */
  get ready(): boolean {
    return this.#last.ready;
  }

  get last(): ReadinessEvaluation {
    return this.#last;
  }

  async evaluate(): Promise<ReadinessEvaluation> {
    const results = new Map<string, CheckResult>();
    const put = (name: string, passed: boolean, detail: string): void => {
      results.set(name, { name, status: passed ? 'passed' : 'failed', detail });
    };
    put(...(await this.#checkConfig()));
    // Re-check the live audit file (removed, replaced, truncated, tail edited) before reading its state.
    await this.#inputs.auditLog.probe();
    for (const c of foundationChecks(this.#inputs)) results.set(c.name, c);
    // The trust store is re-read on every evaluation: one made invalid while running turns the service not-ready.
    if (this.#inputs.config.trustStorePath !== undefined) {
      const trustStore = await validateTrustStoreFile(this.#inputs.config.trustStorePath);
      put(...trustStoreCheck(trustStore));
      // The signing key must still be published in the trust store as it is now.
      results.set('footer_signing', footerSigningCheck(this.#inputs.footerSigning, trustStore));
    }

    const reads = new Map<ArtifactName, { value: Artifact; sha256: string }>();
    for (const name of Object.keys(ARTIFACTS) as ArtifactName[]) {
      const read = await this.#store.read(name);
      if (!read.ok) {
        put(name, false, read.problem);
        continue;
      }
      const problem = this.#artifactProblem(name, read.value);
      if (problem !== undefined) {
        put(name, false, problem);
        continue;
      }
      reads.set(name, { value: read.value as Artifact, sha256: read.sha256 });
      put(name, true, `${ARTIFACTS[name].file} sha256 ${read.sha256.slice(0, 12)}`);
    }
    const report = reads.get('production_readiness_report');
    if (report) {
      const listed = report.value.artifacts as Array<{ name: ArtifactName; sha256: string }>;
      const drifted = listed.filter((a) => reads.get(a.name)?.sha256 !== a.sha256).map((a) => a.name);
      if (drifted.length > 0) put('production_readiness_report', false, `artifacts changed or failed since the report was written: ${drifted.join(', ')}`);
    }
    const admission = reads.get('production_invocation_admission');
    if (admission && report && admission.value.production_readiness_report_sha256 !== report.sha256) {
      put('production_invocation_admission', false, 'admission does not bind the current production readiness report');
    }

    const checks = READINESS_CHECKS.map((name) => results.get(name) ?? { name, status: 'failed' as const, detail: 'not evaluated' });
    const ready = checks.every((c) => c.status === 'passed');
    const changed = ready !== this.#last.ready;
    this.#last = { ready, checked_at: this.#inputs.now().toISOString(), checks };
    if (changed) this.#onChange?.(ready);
    return this.#last;
  }

  /** The config file on disk must still be the one loaded, and still valid. */
  async #checkConfig(): Promise<[string, boolean, string]> {
    const { config } = this.#inputs;
    let text: string;
    try {
      text = await readFile(config.configPath, 'utf8');
    } catch (err) {
      return ['service_config', false, `config unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})`];
    }
    if (sha256Hex(text) !== config.configSha256) return ['service_config', false, 'config file changed since start-up; restart to apply'];
    let issues;
    try {
      issues = configDocumentIssues(JSON.parse(text));
    } catch {
      return ['service_config', false, 'config is not JSON'];
    }
    return issues.length === 0 ? ['service_config', true, `attr-service-config/v1 sha256 ${config.configSha256.slice(0, 12)}`] : ['service_config', false, `${issues.length} schema issues`];
  }

  #artifactProblem(name: ArtifactName, value: unknown): string | undefined {
    const checker = this.#checkers[name];
    if (!checker.check(value)) {
      const first = checker.issues(value)[0];
      return `does not match ${String((ARTIFACTS[name].schema as { $id?: string }).$id)}: ${first?.path || '/'} ${first?.message ?? ''}`.trim();
    }
    const a = value as Artifact;
    if (a.instance_id !== this.#inputs.instanceId) return 'produced by another service instance (stale artifact)';
    if (a.config_sha256 !== this.#inputs.config.configSha256) return 'bound to a different configuration';
    const corpus = this.#inputs.engine.ok ? this.#inputs.engine.corpusSha256 : null;
    if (a.corpus_sha256 !== corpus) return 'bound to a different corpus';
    if ('status' in a && a.status !== 'passed') {
      const failing = Array.isArray(a.checks) ? (a.checks as Array<{ name: string; status: string }>).filter((c) => c.status !== 'passed').map((c) => c.name) : [];
      return `status ${String(a.status)}${failing.length > 0 ? ` (failed: ${failing.join(', ')})` : ''}`;
    }
    if ('decision' in a && a.decision !== 'admitted') return `decision ${String(a.decision)}: ${(a.reasons as string[]).join('; ')}`;
    return undefined;
  }
}

function trustStoreCheck(report: TrustStoreValidationReport): [string, boolean, string] {
  if (!report.valid) {
    const first = report.schema_issues[0] ?? report.key_issues[0];
    return ['trust_store', false, `trust store no longer validates: ${first ? `${first.path || '/'} ${first.message}` : 'invalid'}`];
  }
  return ['trust_store', true, `${report.keys.length} keys`];
}
