/**
 * The HTTP surface of svc (fastify). Hooks: trace id on every response,
 * credential check on `/v1/*` and `/metrics`, request metrics. Routes live in
 * `routes/<capability>.ts` and only translate HTTP to domain calls.
 */
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance } from 'fastify';
import type { SvcApp } from '../app.ts';
import { authenticate } from '../auth/credentials.ts';
import { SvcError } from '../errors.ts';
import { isGuardedRoute } from '../rollout/guarded-routes.ts';
import { fromFrameworkError, makeErrorHandler, sendError } from './errors.ts';
import { RouteTable } from './method-not-allowed.ts';
import { withOpenApiDefaults } from './openapi-defaults.ts';
import { logRequest } from './request-log.ts';
import { setRequestAttributes, tenantHash } from '../observability/tracing.ts';
import { MetricChildren } from '../observability/metric-children.ts';
import { adminRoutes } from './routes/admin.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { schedulerRoutes } from './routes/scheduler.ts';
import { benchmarkRoutes } from './routes/benchmarks.ts';
import { registerDeprecations } from './deprecation.ts';
import { aiRoutes } from './routes/ai.ts';
import { cacheRoutes } from './routes/cache.ts';
import { executeRoutes } from './routes/execute.ts';
import { manifestRoutes } from './routes/manifests.ts';
import { adapterRoutes } from './routes/adapters.ts';
import { pluginRoutes } from './routes/plugins.ts';
import { objectRoutes } from './routes/objects.ts';
import { rawByteRoutes } from './routes/raw-bytes.ts';
import { conformanceRoutes } from './routes/conformance.ts';
import { healthRoutes } from './routes/health.ts';
import { ledgerRoutes } from './routes/ledger.ts';
import { logRoutes } from './routes/logs.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { planRoutes } from './routes/plans.ts';
import { policyRoutes } from './routes/policies.ts';
import { reportRoutes } from './routes/reports.ts';
import { platformRoutes } from './routes/platforms.ts';
import { dashboardRoutes } from './routes/dashboard.ts';
import { workUnitRoutes } from './routes/work-units.ts';

const PUBLIC_PATHS = new Set(['/healthz', '/readyz', '/openapi.json']);
const STATUS_CLASS = ['0xx', '1xx', '2xx', '3xx', '4xx', '5xx'];

function isProtected(url: string): boolean {
  const pathOnly = url.split('?', 1)[0]!;
  if (PUBLIC_PATHS.has(pathOnly)) return false;
  return pathOnly.startsWith('/v1/') || pathOnly === '/v1' || pathOnly === '/metrics';
}

export async function buildServer(app: SvcApp): Promise<FastifyInstance> {
  const server = Fastify({
    logger: false,
    bodyLimit: app.config.server.body_limit_bytes,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // No coercion: the domain validates the body exactly as sent (ajv would otherwise rewrite 1 into "1" in place).
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } },
    // Errors the router raises before any hook runs (a path parameter over maxParamLength, a malformed URL):
    // the spec's error body like every other error.
    frameworkErrors: (error, _request, reply) => {
      sendError(reply, fromFrameworkError(error));
    },
  });

  // Every route's methods and path pattern, so an unknown method on a known path is a 405 with `Allow` (method-not-allowed.ts).
  const routeTable = new RouteTable();
  server.addHook('onRoute', (route) => routeTable.add(route.method, route.url));
  // Deprecated routes (docs/versioning.md): Deprecation/Sunset/Link headers and `deprecated` in OpenAPI.
  registerDeprecations(server);

  // An empty body sent as application/json reads as "no body" (routes whose body is optional accept it);
  // anything else goes through fastify's own JSON parser (prototype-poisoning protection included).
  const defaultJson = server.getDefaultJsonParser('error', 'error');
  server.removeContentTypeParser('application/json');
  server.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') {
      done(null, undefined);
      return;
    }
    defaultJson(request, typeof body === 'string' ? body : body.toString('utf8'), done);
  });

  server.decorateRequest('traceId', '');
  server.decorateRequest('requestTrace', undefined as never);
  server.decorateRequest('principal', undefined);

  // One trace per request: its root span (svc.intake) is open from here to onResponse, and the
  // hooks and handler run inside it so every domain span is its descendant (observability/tracing.ts).
  // Callback-style on purpose: `done` runs inside the scope, so what fastify does next inherits it.
  // One hook does intake (trace id, standard headers, credential): every hook and every promise a
  // hook returns is per-request work, on the path every request takes.
  const exporting = app.tracing.exporting;
  server.addHook('onRequest', (request, reply, done) => {
    const requestTrace = app.tracing.beginRequest(request.headers.traceparent);
    request.requestTrace = requestTrace;
    request.traceId = requestTrace.traceId;
    request.facts = {};
    request.errorCode = undefined;
    reply.header('X-SVC-Trace-ID', requestTrace.traceId);
    reply.header('Cache-Control', 'no-store');
    reply.header('X-Content-Type-Options', 'nosniff');
    requestTrace.enter(() => {
      if (!isProtected(request.url)) return done();
      try {
        request.principal = authenticate(app.credentials, request.headers);
        // Only a span reads the tenant's hash: not computed when no span is exported.
        if (exporting && request.principal.tenant !== undefined) setRequestAttributes({ tenant_hash: tenantHash(request.principal.tenant) });
      } catch (err) {
        app.metrics.authFailures.inc();
        // sendError records the code for the response's log line (request-log.ts); the credential is never logged.
        reply.header('WWW-Authenticate', 'Bearer realm="svc"');
        sendError(reply, err instanceof SvcError ? err : SvcError.from(err));
        return;
      }
      done();
    });
  });
  // Body parsing runs on the socket's callbacks, outside the scope: enter it again before validation
  // (only when spans are exported: without them there is no scope to enter).
  if (exporting) {
    server.addHook('preValidation', (request, _reply, done) => {
      request.requestTrace.enter(done);
    });
  }

  // Route templates and status classes are closed sets: one prom-client child per series, made once.
  const requestCounts = new MetricChildren((v) => app.metrics.httpRequests.labels(...v));
  const requestSeconds = new MetricChildren((v) => app.metrics.httpSeconds.labels(...v));
  server.addHook('onResponse', (request, reply, done) => {
    try {
      request.requestTrace.end(reply.statusCode);
      logRequest(app.log, request, reply);
      const route = request.routeOptions.url ?? 'unmatched';
      requestCounts.get(route, STATUS_CLASS[Math.floor(reply.statusCode / 100)] ?? `${Math.floor(reply.statusCode / 100)}xx`).inc();
      requestSeconds.get(route).observe(reply.elapsedTime / 1000);
      // The SLO guardrail watches the optimisation hot path only (src/svc/rollout/guarded-routes.ts).
      if (isGuardedRoute(request.url)) app.rollout.guardrail.record(reply.elapsedTime, reply.statusCode < 500);
    } finally {
      done();
    }
  });

  server.setErrorHandler(makeErrorHandler(app.log));
  server.setNotFoundHandler((request, reply) => {
    const allowed = routeTable.methodsFor(request.url);
    if (allowed.length > 0) {
      reply.header('Allow', allowed.join(', '));
      return sendError(reply, new SvcError('method_not_allowed', `${request.method} is not allowed on this path; allowed: ${allowed.join(', ')}`, { details: { allow: allowed } }));
    }
    return sendError(reply, fromFrameworkError(Object.assign(new Error('not found'), { statusCode: 404 }) as never));
  });

  await server.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'svc — work-unit optimization service', version: '1.0.0', license: { name: 'UNLICENSED (proprietary)' } },
      servers: [{ url: 'http://127.0.0.1:8080', description: 'svc on its defaults (npm start); set your deployment URL' }],
      components: { securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' }, bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ apiKey: [] }, { bearer: [] }],
    },
    transform: withOpenApiDefaults as never,
  });
  server.get('/openapi.json', { schema: { hide: true } }, async () => server.swagger());

  await server.register(async (s) => healthRoutes(s, app));
  await server.register(async (s) => metricsRoutes(s, app));
  await server.register(async (s) => workUnitRoutes(s, app));
  await server.register(async (s) => planRoutes(s, app));
  await server.register(async (s) => ledgerRoutes(s, app));
  await server.register(async (s) => logRoutes(s, app));
  await server.register(async (s) => policyRoutes(s, app));
  await server.register(async (s) => approvalRoutes(s, app));
  await server.register(async (s) => schedulerRoutes(s, app));
  await server.register(async (s) => benchmarkRoutes(s, app));
  await server.register(async (s) => adminRoutes(s, app));
  await server.register(async (s) => aiRoutes(s, app));
  await server.register(async (s) => cacheRoutes(s, app));
  await server.register(async (s) => executeRoutes(s, app));
  await server.register(async (s) => manifestRoutes(s, app));
  await server.register(async (s) => objectRoutes(s, app));
  await server.register(async (s) => rawByteRoutes(s, app));
  await server.register(async (s) => adapterRoutes(s, app));
  await server.register(async (s) => pluginRoutes(s, app));
  await server.register(async (s) => conformanceRoutes(s, app));
  await server.register(async (s) => reportRoutes(s, app));
  await server.register(async (s) => platformRoutes(s, app));
  await server.register(async (s) => dashboardRoutes(s));
  return server;
}
