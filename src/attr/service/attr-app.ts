/**
 * Composition root of the attr service: config → auth → corpus and engine →
 * audit log → trust store → readiness artifacts → gate → domain → HTTP.
 * Start-up never throws for a failed check: the service comes up not-ready
 * and /readyz says why (fail closed, but observable). Only an unusable
 * config (nothing to listen on) stops the process.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import { AuditLog } from '../audit/audit-log.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import { createAttributionEngine, loadCorpus, type AttributeInput, type AttributionEngine, type Corpus } from '../engine/index.ts';
import { AttrError } from '../errors.ts';
import { loadFooterSigner, type FooterSigningLoad } from '../footer/load-footer-signer.ts';
import type { Fetch } from '../provider/chat-completions-client.ts';
import { ArtifactStore } from '../readiness/artifact-store.ts';
import { produceReadinessArtifacts } from '../readiness/produce-artifacts.ts';
import { ReadinessGate } from '../readiness/readiness-gate.ts';
import type { EngineLoad, ReadinessInputs, SelfTestSubject } from '../readiness/readiness-inputs.ts';
import { loadTrustStoreFile } from '../trust-store/validate-trust-store.ts';
import { bodyDigest, encodeAttribution, InlineEngineRunner, type AttributionRunner } from './attribution-runner.ts';
import { AttributionService } from './attribution-service.ts';
import { BearerAuthenticator, TOKEN_DIGEST_ENV } from './bearer-auth.ts';
import { ClientIdentity } from './client-identity.ts';
import { EngineWorkerPool } from './engine-worker-pool.ts';
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

/** `engine.workers`, or the cores this process may use (docs/decisions/140-attr-engine-worker-pool.md). */
export function engineWorkerCount(config: Pick<ServiceConfig, 'engineWorkers'>): number {
  return config.engineWorkers ?? os.availableParallelism();
}

/**
 * The engine as readiness sees it, the runner requests go to, and the
 * in-process engine for the start-up self-test (all but `load` undefined
 * when the engine did not load).
 */
interface LoadedEngine {
  load: EngineLoad;
  runner: AttributionRunner | undefined;
  selfTest: SelfTestSubject | undefined;
}

async function loadEngine(config: ServiceConfig, footerSigning: FooterSigningLoad | null): Promise<LoadedEngine> {
  let corpus: Corpus;
  let engine: AttributionEngine;
  try {
    corpus = await loadCorpus(config.corpusPath);
    // A key that failed to load signs nothing; its readiness check keeps the gate closed.
    const footerSigner = footerSigning?.ok === true ? footerSigning.signer : undefined;
    engine = createAttributionEngine(corpus, footerSigner === undefined ? {} : { footerSigner });
  } catch (err) {
    const e = AttrError.from(err);
    return { load: { ok: false, problem: e.code === 'internal' ? 'engine failed to start' : `${e.code}: ${e.message}` }, runner: undefined, selfTest: undefined };
  }
  // The in-process engine serves the readiness self-test and the workers' probe; with a pool it is dropped after start-up.
  let runner: AttributionRunner;
  try {
    runner = await startRunner(config, corpus, engine, footerSigning);
  } catch (err) {
    return { load: { ok: false, problem: `engine workers failed to start: ${(err as Error).message}` }, runner: undefined, selfTest: undefined };
  }
  return { load: { ok: true, corpusSha256: corpus.sha256, stats: engine.stats, runner }, runner, selfTest: { engine, corpus } };
}

async function startRunner(config: ServiceConfig, corpus: Corpus, engine: AttributionEngine, footerSigning: FooterSigningLoad | null): Promise<AttributionRunner> {
  const workers = engineWorkerCount(config);
  if (workers === 0) return new InlineEngineRunner(engine);
  // No output: the engine's demonstration answer from this corpus, so the probe exercises retrieval and the footer.
  const probe: AttributeInput = {
    prompt: 'attr engine worker probe',
    grossRevenue: '1.00',
    context: { eventId: 'evt_engine_worker_probe', requestId: 'req_engine_worker_probe', operator: config.operator, createdAt: '2000-01-01T00:00:00.000Z' },
  };
  return EngineWorkerPool.start({
    size: workers,
    corpus,
    // A key that failed to load is not handed to workers: footer_signing keeps the gate closed anyway.
    footerSigning: footerSigning?.ok === true ? config.footerSigning : undefined,
    probe,
    probeSha256: bodyDigest(encodeAttribution(engine.attribute(probe))),
  });
}

export async function createAttrApp(config: ServiceConfig, options: AttrAppOptions = {}): Promise<AttrApp> {
  const env = options.env ?? process.env;
  const now = options.now ?? (() => new Date());
  const version = serviceVersion();
  const auth = new BearerAuthenticator(env);
  const footerSigning = config.footerSigning === undefined ? null : await loadFooterSigner(config.footerSigning);
  // Workers build their engines while the audit chain is verified.
  const [{ load: engine, runner, selfTest }, auditLog] = await Promise.all([loadEngine(config, footerSigning), AuditLog.open(config.auditLogPath, { fsync: config.auditFsync, now })]);
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
  // After this the service thread keeps no reference to its own engine unless it runs requests inline (engine.workers 0):
  // a ~50 MB corpus index less to mark on every full GC of the thread that serves HTTP and the audit log.
  const produced = await produceReadinessArtifacts(inputs, store, selfTest);
  const gate = new ReadinessGate(inputs, store, { onChange: (ready) => metrics.setReady(ready) });
  await gate.evaluate();

  const attribution = new AttributionService({
    config,
    runner,
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
    serverTiming: env.ATTR_SERVICE_SERVER_TIMING === '1',
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
      await runner?.close();
      await auditLog.close();
    },
  };
}
