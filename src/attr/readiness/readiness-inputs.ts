/**
 * Everything the readiness artifacts and the gate look at, gathered by the
 * composition root (src/attr/service/attr-app.ts) at start-up.
 */
import type { AuditLog } from '../audit/audit-log.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import type { AttributionEngine, Corpus } from '../engine/index.ts';
import type { FooterSigningLoad } from '../footer/load-footer-signer.ts';
import type { TrustStore } from '../trust-store/trust-store-schema.ts';
import type { TrustStoreValidationReport } from '../trust-store/trust-store-validation-report.ts';

/** Where the service runs the engine for requests (src/attr/service/attribution-runner.ts). */
export interface EngineRunnerState {
  /** Worker threads attributing; 0: the service's own thread. */
  readonly workers: number;
  /** Why requests cannot be attributed now (a worker pool that lost a worker and could not replace it). */
  problem(): string | undefined;
}

/**
 * The loaded engine as readiness sees it for the life of the process: what
 * was loaded and whether the runner serving requests can take them. The
 * engine object itself is not kept here: with a worker pool the service
 * thread drops its own engine (and its corpus index) once the start-up
 * self-test has run on it (produceReadinessArtifacts).
 */
export type EngineLoad =
  | { ok: true; corpusSha256: string; stats: AttributionEngine['stats']; runner: EngineRunnerState }
  | { ok: false; problem: string };

/** What the start-up self-test attributes with: the in-process engine and its corpus. */
export interface SelfTestSubject {
  engine: AttributionEngine;
  corpus: Corpus;
}

export interface EndpointDescription {
  method: string;
  path: string;
  auth: 'none' | 'bearer';
}

export interface ReadinessInputs {
  /** Random per process start; every artifact is bound to it. */
  instanceId: string;
  serviceVersion: string;
  config: ServiceConfig;
  env: Readonly<Record<string, string | undefined>>;
  auth: { configured: boolean; problem: string | undefined; digestEnv: string };
  engine: EngineLoad;
  auditLog: AuditLog;
  /** Validation report of the configured trust store; null when none is configured. */
  trustStore: TrustStoreValidationReport | null;
  /** The trust store document when it validated at start-up (the self-test checks footer signatures against it). */
  trustStoreDocument: TrustStore | null;
  /** The footer signing key as loaded at start-up; null when footers are unsigned. */
  footerSigning: FooterSigningLoad | null;
  endpoints: readonly EndpointDescription[];
  securityHeaders: Readonly<Record<string, string>>;
  requestIdHeader: string;
  now: () => Date;
}
