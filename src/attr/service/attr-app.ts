/**
 * Composition root of the attr service: config → auth → corpus and engine →
 * audit log → trust store → readiness artifacts → gate → domain → HTTP.
 * Start-up never throws for a failed check: the service comes up not-ready
 * and /readyz says why (fail closed, but observable). Only an unusable
 * config (nothing to listen on) stops the process.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { AuditLog } from '../audit/audit-log.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import { createAttributionEngine, loadCorpus } from '../engine/index.ts';
import { AttrError } from '../errors.ts';
import { loadFooterSigner, type FooterSigningLoad } from '../footer/load-footer-signer.ts';
import type { Fetch } from '../provider/chat-completions-client.ts';
import { ArtifactStore } from '../readiness/artifact-store.ts';
import { produceReadinessArtifacts } from '../readiness/produce-artifacts.ts';
import { ReadinessGate } from '../readiness/readiness-gate.ts';
import type { EngineLoad, ReadinessInputs } from '../readiness/readiness-inputs.ts';
import { loadTrustStoreFile } from '../trust-store/validate-trust-store.ts';
import { AttributionService } from './attribution-service.ts';
import { BearerAuthenticator, TOKEN_DIGEST_ENV } from './bearer-auth.ts';
import { ClientIdentity } from './client-identity.ts';
import { ENDPOINTS } from './endpoints.ts';
import { buildHttpServer } from './http-server.ts';
import { REQUEST_ID_HEADER, SECURITY_HEADERS } from './security-headers.ts';
import { ServiceMetrics } from './service-metrics.ts';
import { SlidingWindowRateLimiter } from './sliding-window-rate-limiter.ts';

/** How often the gate re-reads its artifacts between /readyz calls. */
const READINESS_RECHECK_MS = 5_000;

export interface AttrAppOptions {
  env?: Readonly<Record<string, string | undefined>>;
  fetch?: Fetch;
  now?: () => Date;
  logLevel?: string;
}

export interface AttrApp {
  server: FastifyInstance;
  gate: ReadinessGate;
  auditLog: AuditLog;
  /** Starts listening on the config's host/port; resolves with the bound URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

function serviceVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

async function loadEngine(corpusPath: string, footerSigning: FooterSigningLoad | null): Promise<EngineLoad> {
  try {
    const corpus = await loadCorpus(corpusPath);
    // A key that failed to load signs nothing; its readiness check keeps the gate closed.
    const footerSigner = footerSigning?.ok === true ? footerSigning.signer : undefined;
    return { ok: true, corpus, engine: createAttributionEngine(corpus, footerSigner === undefined ? {} : { footerSigner }) };
  } catch (err) {
    const e = AttrError.from(err);
    return { ok: false, problem: e.code === 'internal' ? 'engine failed to start' : `${e.code}: ${e.message}` };
  }
}

export async function createAttrApp(config: ServiceConfig, options: AttrAppOptions = {}): Promise<AttrApp> {
  const env = options.env ?? process.env;
  const now = options.now ?? (() => new Date());
  const version = serviceVersion();
  const auth = new BearerAuthenticator(env);
  const footerSigning = config.footerSigning === undefined ? null : await loadFooterSigner(config.footerSigning);
  const engine = await loadEngine(config.corpusPath, footerSigning);
  const auditLog = await AuditLog.open(config.auditLogPath, { fsync: config.auditFsync, now });
  const trustStoreLoad = config.trustStorePath === undefined ? null : await loadTrustStoreFile(config.trustStorePath);
  const trustStore = trustStoreLoad?.report ?? null;
  const metrics = new ServiceMetrics({
    providerRouteCount: config.providers.length,
    auditHead: () => {
      const s = auditLog.state();
      return { seq: s.entries, hash: s.headHash, segment: s.segment };
    },
  });

  const inputs: ReadinessInputs = {
    instanceId: randomBytes(12).toString('hex'),
    serviceVersion: version,
    config,
    env,
    auth: { configured: auth.configured, problem: auth.problem, digestEnv: TOKEN_DIGEST_ENV },
    engine,
    auditLog,
    trustStore,
    trustStoreDocument: trustStoreLoad?.document ?? null,
    footerSigning,
    endpoints: ENDPOINTS,
    securityHeaders: SECURITY_HEADERS,
    requestIdHeader: REQUEST_ID_HEADER,
    now,
  };
  const store = new ArtifactStore(config.artifactDir);
  const produced = await produceReadinessArtifacts(inputs, store);
  const gate = new ReadinessGate(inputs, store, { onChange: (ready) => metrics.setReady(ready) });
  await gate.evaluate();

  const attribution = new AttributionService({
    config,
    engine: engine.ok ? engine.engine : undefined,
    auditLog,
    gate,
    metrics,
    env,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    now,
  });
  const limiter = new SlidingWindowRateLimiter({ windowMs: config.rateLimit.window_ms, maxRequests: config.rateLimit.max_requests });
  const server = await buildHttpServer({
    attribution,
    gate,
    metrics,
    auth,
    limiter,
    clientIdentity: new ClientIdentity(config.rateLimit.trusted_proxies ?? []),
    discoveryManifest: produced.discoveryManifest,
    maxRequestBytes: config.limits.max_request_bytes,
    serviceVersion: version,
    logLevel: options.logLevel ?? env.ATTR_SERVICE_LOG_LEVEL ?? 'info',
  });

  const timer = setInterval(() => {
    gate.evaluate().catch((err: unknown) => server.log.error({ err }, 'readiness evaluation failed'));
  }, READINESS_RECHECK_MS);
  timer.unref();

  return {
    server,
    gate,
    auditLog,
    async listen() {
      return server.listen({ host: config.host, port: config.port });
    },
    async close() {
      clearInterval(timer);
      await server.close();
      await auditLog.close();
    },
  };
}
