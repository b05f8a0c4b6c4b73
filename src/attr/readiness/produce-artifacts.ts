/**
 * Produces the seven readiness artifacts at start-up, in dependency order:
 * the self-test (certification report + source-grounded response receipt),
 * the discovery manifest, the provider attribution card and the runtime
 * conformance receipt; then the production-readiness report that binds them
 * all by hash together with the auth, engine, audit-log and trust-store
 * checks; then the invocation admission that rests on that report.
 */
import { ARTIFACT_SCHEMA_IDS, type ArtifactName, type CertificationReport, type CheckResult, type DiscoveryManifest, type ProductionInvocationAdmission, type ProductionReadinessReport, type ProviderAttributionCard, type RuntimeConformanceReceipt, type SourceGroundedResponseReceipt } from './artifact-schemas.ts';
import type { ArtifactStore } from './artifact-store.ts';
import type { EngineLoad, ReadinessInputs, SelfTestSubject } from './readiness-inputs.ts';
import { groundedHashes, runSelfTest, type SelfTestResult } from './self-test.ts';
import { FOOTER_SCHEMA_ID, EVENT_SCHEMA_ID } from '../schemas/attribution-response.ts';
import { RESPONSE_SCHEMA_ID } from '../engine/index.ts';
import { AUDIT_ENTRY_SCHEMA_ID } from '../audit/audit-entry.ts';
import { signerTrustProblem } from '../footer/footer-signature.ts';
import type { FooterSigningLoad } from '../footer/load-footer-signer.ts';
import type { TrustStoreValidationReport } from '../trust-store/trust-store-validation-report.ts';

const ZERO_HASH = '0'.repeat(64);

/** The fail-closed provider cases the card declares (and the service enforces). */
export const PROVIDER_FAIL_CLOSED_CASES = [
  'unknown_provider',
  'provider_key_missing',
  'provider_failed',
  'provider_filtered',
  'provider_malformed',
  'provider_output_too_large',
] as const;

/** Checks that are not artifacts but feed the readiness report. */
export function foundationChecks(inputs: ReadinessInputs): CheckResult[] {
  const audit = inputs.auditLog.state();
  const check = (name: string, passed: boolean, detail: string): CheckResult => ({ name, status: passed ? 'passed' : 'failed', detail });
  return [
    check('auth_hash', inputs.auth.configured, inputs.auth.problem ?? `${inputs.auth.digestEnv} holds a SHA-256 digest`),
    engineLoadCheck(inputs.engine),
    check('audit_log', audit.healthy, audit.problem ?? `${audit.entries} entries in ${audit.segment} segment(s), chain verified, live file unchanged`),
    check(
      'trust_store',
      inputs.trustStore === null || inputs.trustStore.valid,
      inputs.trustStore === null ? 'not configured' : inputs.trustStore.valid ? `${inputs.trustStore.keys.length} keys` : 'trust store does not validate',
    ),
    footerSigningCheck(inputs.footerSigning, inputs.trustStore),
  ];
}

/** `engine_load`: the corpus and engine loaded, and the runner (worker pool) can take requests right now. */
function engineLoadCheck(engine: EngineLoad): CheckResult {
  const check = (passed: boolean, detail: string): CheckResult => ({ name: 'engine_load', status: passed ? 'passed' : 'failed', detail });
  if (!engine.ok) return check(false, engine.problem);
  const problem = engine.runner.problem();
  if (problem !== undefined) return check(false, problem);
  const where = engine.runner.workers === 0 ? 'engine in the service thread' : `${engine.runner.workers} engine worker thread(s)`;
  return check(true, `${engine.stats.sourceCount} sources, ${engine.stats.chunkCount} chunks, ${where}`);
}

/**
 * `footer_signing`: unsigned deployments pass (footers say so: `signature: null`); a configured key must load
 * and be published in the trust store for `receipt_public_key` (docs/decisions/136-signed-footers.md).
 */
export function footerSigningCheck(signing: FooterSigningLoad | null, trustStore: TrustStoreValidationReport | null): CheckResult {
  const check = (passed: boolean, detail: string): CheckResult => ({ name: 'footer_signing', status: passed ? 'passed' : 'failed', detail });
  if (signing === null) return check(true, 'not configured: footers are unsigned');
  if (!signing.ok) return check(false, signing.problem);
  if (trustStore === null || !trustStore.valid) return check(false, 'the trust store that publishes the signing key does not validate');
  const problem = signerTrustProblem(signing.signer, trustStore.keys);
  return problem === undefined ? check(true, `footers signed (Ed25519) with trust store key ${JSON.stringify(signing.signer.keyId)}`) : check(false, problem);
}

export interface ProducedArtifacts {
  selfTest: SelfTestResult | undefined;
  hashes: Partial<Record<ArtifactName, string>>;
  discoveryManifest: DiscoveryManifest;
}

/** `subject`: the in-process engine the self-test runs on (undefined when the engine did not load). */
export async function produceReadinessArtifacts(inputs: ReadinessInputs, store: ArtifactStore, subject: SelfTestSubject | undefined): Promise<ProducedArtifacts> {
  const { config } = inputs;
  const generatedAt = inputs.now().toISOString();
  const binding = {
    instance_id: inputs.instanceId,
    generated_at: generatedAt,
    config_sha256: config.configSha256,
    corpus_sha256: inputs.engine.ok ? inputs.engine.corpusSha256 : null,
  };
  const hashes: Partial<Record<ArtifactName, string>> = {};

  const selfTest = inputs.engine.ok && subject !== undefined
    ? runSelfTest(subject.engine, subject.corpus, {
        operator: config.operator,
        instanceId: inputs.instanceId,
        createdAt: generatedAt,
        ...(inputs.footerSigning?.ok === true && inputs.trustStoreDocument !== null ? { trustStore: inputs.trustStoreDocument } : {}),
      })
    : undefined;
  const certification: CertificationReport = {
    schema: ARTIFACT_SCHEMA_IDS.certificationReport,
    ...binding,
    status: selfTest?.passed ? 'passed' : 'failed',
    checks: selfTest?.checks ?? [{ name: 'engine_load', status: 'failed', detail: inputs.engine.ok ? 'not run' : inputs.engine.problem }],
  };
  hashes.certification_report = await store.write('certification_report', certification);

  const grounded = selfTest?.grounded;
  const groundedOk = grounded !== undefined && grounded.response.status === 'ready' && grounded.productionDisplayReady && grounded.acceptanceStatus === 'passed';
  const groundedHash = grounded ? groundedHashes(grounded) : undefined;
  const receipt: SourceGroundedResponseReceipt = {
    schema: ARTIFACT_SCHEMA_IDS.sourceGroundedResponseReceipt,
    ...binding,
    status: groundedOk ? 'passed' : 'failed',
    prompt_sha256: groundedHash?.prompt ?? ZERO_HASH,
    answer_sha256: groundedHash?.answer ?? ZERO_HASH,
    response_sha256: groundedHash?.response ?? ZERO_HASH,
    event_id: grounded?.response.event.event_id ?? '',
    event_hash: grounded?.response.event.event_hash ?? ZERO_HASH,
    footer_hash: grounded?.response.source_footer.footer_hash ?? ZERO_HASH,
    response_status: grounded?.response.status ?? 'blocked',
    production_display_ready: grounded?.productionDisplayReady ?? false,
    source_grounding_acceptance_status: grounded?.acceptanceStatus ?? 'not_run',
    source_count: grounded?.response.source_footer.source_rows.length ?? 0,
    claim_count: grounded?.response.source_footer.claim_rows.length ?? 0,
  };
  hashes.source_grounded_response_receipt = await store.write('source_grounded_response_receipt', receipt);

  const trust = inputs.trustStore;
  const discoveryManifest: DiscoveryManifest = {
    schema: ARTIFACT_SCHEMA_IDS.discoveryManifest,
    ...binding,
    service: 'attr',
    service_version: inputs.serviceVersion,
    operator: config.operator,
    base_url: config.publicBaseUrl ?? null,
    endpoints: inputs.endpoints.map((e) => ({ ...e })),
    schemas: { response: RESPONSE_SCHEMA_ID, source_footer: FOOTER_SCHEMA_ID, usage_event: EVENT_SCHEMA_ID, audit_entry: AUDIT_ENTRY_SCHEMA_ID },
    verification_handle_prefix: 'attr://verify/source-footer/',
    auth: { scheme: 'bearer', token_digest_env: inputs.auth.digestEnv },
    request_id_header: inputs.requestIdHeader,
    limits: { ...config.limits },
    // The proxy addresses stay private: the public manifest says only how many are trusted.
    rate_limit: { window_ms: config.rateLimit.window_ms, max_requests: config.rateLimit.max_requests, scope: 'per_client_per_process', trusted_proxy_count: config.rateLimit.trusted_proxies?.length ?? 0 },
    providers: config.providers.map((p) => ({ provider_id: p.providerId, model: p.model })),
    corpus: inputs.engine.ok
      ? { sha256: inputs.engine.corpusSha256, source_count: inputs.engine.stats.sourceCount, chunk_count: inputs.engine.stats.chunkCount }
      : null,
    trust_store:
      trust !== null && trust.valid
        ? { key_ids: trust.keys.map((k) => k.key_id), attestation_types: [...new Set(trust.keys.flatMap((k) => k.allowed_attestation_types))].sort() }
        : null,
  };
  hashes.discovery_manifest = await store.write('discovery_manifest', discoveryManifest);

  const card: ProviderAttributionCard = {
    schema: ARTIFACT_SCHEMA_IDS.providerAttributionCard,
    ...binding,
    release_policy: 'attribute_before_release',
    response_hash: 'sha256_of_raw_response_body',
    fail_closed_on: [...PROVIDER_FAIL_CLOSED_CASES],
    providers: config.providers.map((p) => ({
      provider_id: p.providerId,
      model: p.model,
      base_url: p.baseUrl,
      api_key_env: p.apiKeyEnv,
      api_key_present: (inputs.env[p.apiKeyEnv] ?? '') !== '',
      timeout_ms: p.timeoutMs,
      max_output_bytes: p.maxOutputBytes,
      max_response_bytes: p.maxResponseBytes,
    })),
  };
  hashes.provider_attribution_card = await store.write('provider_attribution_card', card);

  const audit = inputs.auditLog.state();
  const runtimeChecks: CheckResult[] = [
    { name: 'security_headers', status: inputs.securityHeaders['cache-control'] === 'no-store' && inputs.securityHeaders['x-content-type-options'] === 'nosniff' && 'content-security-policy' in inputs.securityHeaders ? 'passed' : 'failed', detail: 'no-store, nosniff and a CSP on every response' },
    { name: 'token_digest', status: inputs.auth.configured ? 'passed' : 'failed', detail: inputs.auth.problem ?? 'configured' },
    { name: 'audit_log_chain', status: audit.healthy ? 'passed' : 'failed', detail: audit.problem ?? 'verified at start-up' },
  ];
  const runtime: RuntimeConformanceReceipt = {
    schema: ARTIFACT_SCHEMA_IDS.runtimeConformanceReceipt,
    ...binding,
    status: runtimeChecks.every((c) => c.status === 'passed') ? 'passed' : 'failed',
    node_version: process.version,
    controls: {
      security_headers: { ...inputs.securityHeaders },
      cors: 'disabled',
      request_id_header: inputs.requestIdHeader,
      auth: 'bearer_sha256_constant_time',
      token_digest_configured: inputs.auth.configured,
      rate_limit: { window_ms: config.rateLimit.window_ms, max_requests: config.rateLimit.max_requests, trusted_proxy_count: config.rateLimit.trusted_proxies?.length ?? 0 },
      limits: { ...config.limits },
      audit_log: { path: audit.path, fsync: config.auditFsync, entries: audit.entries, head_hash: audit.headHash, chain_verified: audit.healthy },
    },
    checks: runtimeChecks,
  };
  hashes.runtime_conformance_receipt = await store.write('runtime_conformance_receipt', runtime);

  const foundation = foundationChecks(inputs);
  const artifactChecks: CheckResult[] = [
    { name: 'certification_report', status: certification.status, detail: `${certification.checks.filter((c) => c.status === 'passed').length}/${certification.checks.length} self-test checks passed` },
    { name: 'source_grounded_response_receipt', status: receipt.status, detail: `response ${receipt.response_status}, acceptance ${receipt.source_grounding_acceptance_status}` },
    { name: 'runtime_conformance_receipt', status: runtime.status, detail: 'runtime controls in force' },
  ];
  const readinessChecks = [...foundation, ...artifactChecks];
  const readinessReport: ProductionReadinessReport = {
    schema: ARTIFACT_SCHEMA_IDS.productionReadinessReport,
    ...binding,
    status: readinessChecks.every((c) => c.status === 'passed') ? 'passed' : 'failed',
    artifacts: (['certification_report', 'source_grounded_response_receipt', 'discovery_manifest', 'provider_attribution_card', 'runtime_conformance_receipt'] as const).map((name) => ({
      name,
      file: store.fileOf(name).slice(store.dir.length + 1),
      sha256: hashes[name]!,
    })),
    checks: readinessChecks,
  };
  hashes.production_readiness_report = await store.write('production_readiness_report', readinessReport);

  const admitted = readinessReport.status === 'passed';
  const admission: ProductionInvocationAdmission = {
    schema: ARTIFACT_SCHEMA_IDS.productionInvocationAdmission,
    ...binding,
    decision: admitted ? 'admitted' : 'refused',
    production_readiness_report_sha256: hashes.production_readiness_report,
    admitted_routes: admitted ? ['POST /v1/attribute', ...(config.providers.length > 0 ? ['POST /v1/provider/attribute'] : [])] : [],
    admitted_provider_ids: admitted ? card.providers.filter((p) => p.api_key_present).map((p) => p.provider_id) : [],
    reasons: readinessChecks.filter((c) => c.status === 'failed').map((c) => `${c.name}: ${c.detail}`),
  };
  hashes.production_invocation_admission = await store.write('production_invocation_admission', admission);

  return { selfTest, hashes, discoveryManifest };
}
