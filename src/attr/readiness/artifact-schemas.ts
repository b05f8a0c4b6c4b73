/**
 * The seven readiness artifacts the service writes into `artifact_dir` at
 * start-up, one schema each (published under src/attr/readiness/schemas/).
 * Every artifact carries the `instance_id` of the process that produced it,
 * so an artifact left over from an earlier run never satisfies the gate, and
 * the config and corpus hashes it was produced against.
 *
 * How each is produced and checked: docs/attr-readiness.md.
 */
import Type from 'typebox';
import type { Static, TSchema } from 'typebox';

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });
const Strict = { additionalProperties: false } as const;
const PassFail = Type.Union([Type.Literal('passed'), Type.Literal('failed')]);

/** Fields every artifact starts with. */
const Binding = {
  instance_id: Type.String({ minLength: 1 }),
  generated_at: Type.String({ minLength: 1 }),
  config_sha256: Sha256,
  corpus_sha256: Type.Union([Sha256, Type.Null()]),
};

export const CheckResultSchema = Type.Object(
  { name: Type.String({ minLength: 1 }), status: PassFail, detail: Type.String() },
  Strict,
);
export type CheckResult = Static<typeof CheckResultSchema>;

export const ARTIFACT_SCHEMA_IDS = {
  certificationReport: 'attr-certification-report/v1',
  discoveryManifest: 'attr-discovery-manifest/v1',
  providerAttributionCard: 'attr-provider-attribution-card/v1',
  runtimeConformanceReceipt: 'attr-runtime-conformance-receipt/v1',
  sourceGroundedResponseReceipt: 'attr-source-grounded-response-receipt/v1',
  productionReadinessReport: 'attr-production-readiness-report/v1',
  productionInvocationAdmission: 'attr-production-invocation-admission/v1',
} as const;

/** Result of the start-up self-test (known answer, verification, tamper and block checks). */
export const CertificationReportSchema = Type.Object(
  {
    schema: Type.Literal(ARTIFACT_SCHEMA_IDS.certificationReport),
    ...Binding,
    status: PassFail,
    checks: Type.Array(CheckResultSchema, { minItems: 1 }),
  },
  { ...Strict, $id: ARTIFACT_SCHEMA_IDS.certificationReport },
);

/** The public description of this deployment, served at /.well-known/attr.json. */
export const DiscoveryManifestSchema = Type.Object(
  {
    schema: Type.Literal(ARTIFACT_SCHEMA_IDS.discoveryManifest),
    ...Binding,
    service: Type.Literal('attr'),
    service_version: Type.String(),
    operator: Type.String(),
    base_url: Type.Union([Type.String(), Type.Null()]),
    endpoints: Type.Array(
      Type.Object({ method: Type.String(), path: Type.String(), auth: Type.Union([Type.Literal('none'), Type.Literal('bearer')]) }, Strict),
      { minItems: 1 },
    ),
    schemas: Type.Object({ response: Type.String(), source_footer: Type.String(), usage_event: Type.String(), audit_entry: Type.String() }, Strict),
    verification_handle_prefix: Type.Literal('attr://verify/source-footer/'),
    auth: Type.Object({ scheme: Type.Literal('bearer'), token_digest_env: Type.String() }, Strict),
    request_id_header: Type.String(),
    limits: Type.Object(
      { max_request_bytes: Type.Integer(), max_prompt_bytes: Type.Integer(), max_output_bytes: Type.Integer(), max_messages: Type.Integer() },
      Strict,
    ),
    rate_limit: Type.Object(
      { window_ms: Type.Integer(), max_requests: Type.Integer(), scope: Type.Literal('per_client_per_process'), trusted_proxy_count: Type.Integer({ minimum: 0 }) },
      Strict,
    ),
    providers: Type.Array(Type.Object({ provider_id: Type.String(), model: Type.String() }, Strict)),
    corpus: Type.Union([Type.Object({ sha256: Sha256, source_count: Type.Integer({ minimum: 0 }), chunk_count: Type.Integer({ minimum: 0 }) }, Strict), Type.Null()]),
    trust_store: Type.Union([
      Type.Object({ key_ids: Type.Array(Type.String()), attestation_types: Type.Array(Type.String()) }, Strict),
      Type.Null(),
    ]),
  },
  { ...Strict, $id: ARTIFACT_SCHEMA_IDS.discoveryManifest },
);

/** How provider-backed answers are attributed, per allowlisted route (key names and presence only, never keys). */
export const ProviderAttributionCardSchema = Type.Object(
  {
    schema: Type.Literal(ARTIFACT_SCHEMA_IDS.providerAttributionCard),
    ...Binding,
    release_policy: Type.Literal('attribute_before_release'),
    response_hash: Type.Literal('sha256_of_raw_response_body'),
    fail_closed_on: Type.Array(Type.String(), { minItems: 1 }),
    providers: Type.Array(
      Type.Object(
        {
          provider_id: Type.String(),
          model: Type.String(),
          base_url: Type.String(),
          api_key_env: Type.String(),
          api_key_present: Type.Boolean(),
          timeout_ms: Type.Integer(),
          max_output_bytes: Type.Integer(),
          max_response_bytes: Type.Integer(),
        },
        Strict,
      ),
    ),
  },
  { ...Strict, $id: ARTIFACT_SCHEMA_IDS.providerAttributionCard },
);

/** The runtime controls actually in force in this process. */
export const RuntimeConformanceReceiptSchema = Type.Object(
  {
    schema: Type.Literal(ARTIFACT_SCHEMA_IDS.runtimeConformanceReceipt),
    ...Binding,
    status: PassFail,
    node_version: Type.String(),
    controls: Type.Object(
      {
        security_headers: Type.Record(Type.String(), Type.String()),
        cors: Type.Literal('disabled'),
        request_id_header: Type.String(),
        auth: Type.Literal('bearer_sha256_constant_time'),
        token_digest_configured: Type.Boolean(),
        rate_limit: Type.Object({ window_ms: Type.Integer(), max_requests: Type.Integer(), trusted_proxy_count: Type.Integer({ minimum: 0 }) }, Strict),
        limits: Type.Object(
          { max_request_bytes: Type.Integer(), max_prompt_bytes: Type.Integer(), max_output_bytes: Type.Integer(), max_messages: Type.Integer() },
          Strict,
        ),
        audit_log: Type.Object(
          { path: Type.String(), fsync: Type.String(), entries: Type.Integer({ minimum: 0 }), head_hash: Sha256, chain_verified: Type.Boolean() },
          Strict,
        ),
      },
      Strict,
    ),
    checks: Type.Array(CheckResultSchema),
  },
  { ...Strict, $id: ARTIFACT_SCHEMA_IDS.runtimeConformanceReceipt },
);

/** Binds the self-test's grounded response: what was attributed and how it verified. */
export const SourceGroundedResponseReceiptSchema = Type.Object(
  {
    schema: Type.Literal(ARTIFACT_SCHEMA_IDS.sourceGroundedResponseReceipt),
    ...Binding,
    status: PassFail,
    prompt_sha256: Sha256,
    answer_sha256: Sha256,
    response_sha256: Sha256,
    event_id: Type.String(),
    event_hash: Sha256,
    footer_hash: Sha256,
    response_status: Type.Union([Type.Literal('ready'), Type.Literal('blocked')]),
    production_display_ready: Type.Boolean(),
    source_grounding_acceptance_status: Type.String(),
    source_count: Type.Integer({ minimum: 0 }),
    claim_count: Type.Integer({ minimum: 0 }),
  },
  { ...Strict, $id: ARTIFACT_SCHEMA_IDS.sourceGroundedResponseReceipt },
);

/** Aggregates the other artifacts by hash, plus the non-artifact checks (auth, engine, audit log, trust store). */
export const ProductionReadinessReportSchema = Type.Object(
  {
    schema: Type.Literal(ARTIFACT_SCHEMA_IDS.productionReadinessReport),
    ...Binding,
    status: PassFail,
    artifacts: Type.Array(Type.Object({ name: Type.String(), file: Type.String(), sha256: Sha256 }, Strict), { minItems: 5 }),
    checks: Type.Array(CheckResultSchema, { minItems: 1 }),
  },
  { ...Strict, $id: ARTIFACT_SCHEMA_IDS.productionReadinessReport },
);

/** The decision to admit production invocations, bound to the readiness report it rests on. */
export const ProductionInvocationAdmissionSchema = Type.Object(
  {
    schema: Type.Literal(ARTIFACT_SCHEMA_IDS.productionInvocationAdmission),
    ...Binding,
    decision: Type.Union([Type.Literal('admitted'), Type.Literal('refused')]),
    production_readiness_report_sha256: Sha256,
    admitted_routes: Type.Array(Type.String()),
    admitted_provider_ids: Type.Array(Type.String()),
    reasons: Type.Array(Type.String()),
  },
  { ...Strict, $id: ARTIFACT_SCHEMA_IDS.productionInvocationAdmission },
);

export type CertificationReport = Static<typeof CertificationReportSchema>;
export type DiscoveryManifest = Static<typeof DiscoveryManifestSchema>;
export type ProviderAttributionCard = Static<typeof ProviderAttributionCardSchema>;
export type RuntimeConformanceReceipt = Static<typeof RuntimeConformanceReceiptSchema>;
export type SourceGroundedResponseReceipt = Static<typeof SourceGroundedResponseReceiptSchema>;
export type ProductionReadinessReport = Static<typeof ProductionReadinessReportSchema>;
export type ProductionInvocationAdmission = Static<typeof ProductionInvocationAdmissionSchema>;

/** Artifact name → file name and schema; the order is the order they are produced in. */
export const ARTIFACTS = {
  certification_report: { file: 'certification-report.json', schema: CertificationReportSchema as TSchema },
  discovery_manifest: { file: 'discovery-manifest.json', schema: DiscoveryManifestSchema as TSchema },
  provider_attribution_card: { file: 'provider-attribution-card.json', schema: ProviderAttributionCardSchema as TSchema },
  runtime_conformance_receipt: { file: 'runtime-conformance-receipt.json', schema: RuntimeConformanceReceiptSchema as TSchema },
  source_grounded_response_receipt: { file: 'source-grounded-response-receipt.json', schema: SourceGroundedResponseReceiptSchema as TSchema },
  production_readiness_report: { file: 'production-readiness-report.json', schema: ProductionReadinessReportSchema as TSchema },
  production_invocation_admission: { file: 'production-invocation-admission.json', schema: ProductionInvocationAdmissionSchema as TSchema },
} as const;
export type ArtifactName = keyof typeof ARTIFACTS;
