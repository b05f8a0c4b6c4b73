/**
 * The fastify server of attr: security headers and request ids on every
 * response, the protected-route guard, schema-validated bodies, one error
 * handler, and the routes — each a thin adapter over the attribution domain,
 * the readiness gate or the metrics registry.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { AttributionService } from './attribution-service.ts';
import type { BearerAuthenticator } from './bearer-auth.ts';
import type { ClientIdentity } from './client-identity.ts';
import { toAttrError } from './http-errors.ts';
import { protectedRouteGuard } from './protected-route-guard.ts';
import { installJsonBodyParsing } from './json-body-parser.ts';
import { newRequestId } from './request-id.ts';
import { AttributeRequestSchema, ErrorBodySchema, ProviderAttributeRequestSchema, type AttributeRequest, type ProviderAttributeRequest } from './request-schemas.ts';
import { REQUEST_ID_HEADER, SECURITY_HEADERS } from './security-headers.ts';
import { MetricsResponseSchema, type ServiceMetrics } from './service-metrics.ts';
import type { SlidingWindowRateLimiter } from './sliding-window-rate-limiter.ts';
import { AttrError, attrErrorBody } from '../errors.ts';
import type { ReadinessGate } from '../readiness/readiness-gate.ts';
import type { DiscoveryManifest } from '../readiness/artifact-schemas.ts';

export interface HttpServerDeps {
  attribution: AttributionService;
  gate: ReadinessGate;
  metrics: ServiceMetrics;
  auth: BearerAuthenticator;
  limiter: SlidingWindowRateLimiter;
  clientIdentity: ClientIdentity;
  discoveryManifest: DiscoveryManifest;
  maxRequestBytes: number;
  serviceVersion: string;
  logLevel: string;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Protected routes: failures are counted as fail-closed (blocked_requests_total). */
    protected?: boolean;
  }
}

const errorResponses = { 400: ErrorBodySchema, 401: ErrorBodySchema, 413: ErrorBodySchema, 429: ErrorBodySchema, 503: ErrorBodySchema };

export async function buildHttpServer(deps: HttpServerDeps): Promise<FastifyInstance> {
  const app = Fastify({
    logger: { level: deps.logLevel, redact: ['req.headers.authorization'] },
    bodyLimit: deps.maxRequestBytes,
    genReqId: () => newRequestId(),
    requestIdHeader: false,
    trustProxy: false,
    return503OnClosing: true,
    // Reject, never coerce or strip: a body either matches the schema or is refused.
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } },
  });

  // JSON only (text/plain bodies would fail later as schema errors); precise codes for poisoning keys; no Content-Encoding.
  installJsonBodyParsing(app);

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'attr source-attribution service', version: deps.serviceVersion, description: 'Attributes answers to registered sources and returns a verifiable source footer. Errors: { error: { code, message, retryable, details? } }.' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });

  app.addHook('onRequest', async (request, reply) => {
    deps.metrics.request();
    reply.header(REQUEST_ID_HEADER, request.id);
    reply.headers(SECURITY_HEADERS);
  });

  app.setErrorHandler(async (err, request, reply) => {
    const attrError = toAttrError(err);
    if (attrError.code === 'internal') request.log.error({ err }, 'unexpected error');
    if (request.routeOptions.config.protected) deps.metrics.blocked(attrError.code);
    return reply.status(attrError.httpStatus).send(attrErrorBody(attrError));
  });
  app.setNotFoundHandler(async (_request, reply) => reply.status(404).send(attrErrorBody(new AttrError('not_found', 'no such route'))));

  const guard = protectedRouteGuard(deps);
  const bearer = [{ bearer: [] }];

  app.get('/healthz', { schema: { summary: 'Liveness', tags: ['public'] } }, async () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { summary: 'Readiness: every check must pass before attribution is served', tags: ['public'] } }, async (_request, reply) => {
    const evaluation = await deps.gate.evaluate();
    return reply.status(evaluation.ready ? 200 : 503).send({ schema: 'attr-readiness/v1', status: evaluation.ready ? 'ready' : 'not_ready', ...evaluation });
  });

  app.get('/.well-known/attr.json', { schema: { summary: 'Discovery manifest (attr-discovery-manifest/v1)', tags: ['public'] } }, async () => deps.discoveryManifest);

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.post<{ Body: AttributeRequest }>(
    '/v1/attribute',
    {
      config: { protected: true },
      onRequest: guard,
      schema: { summary: 'Attribute an answer (attr-service-attribution-response/v1)', tags: ['attribution'], security: bearer, body: AttributeRequestSchema, response: errorResponses },
    },
    async (request) => deps.attribution.attribute(request.body, request.id),
  );

  app.post<{ Body: ProviderAttributeRequest }>(
    '/v1/provider/attribute',
    {
      config: { protected: true },
      onRequest: guard,
      schema: {
        summary: 'Call an allowlisted provider, attribute its answer, then release it (attr-service-attribution-response/v1)',
        tags: ['attribution'],
        security: bearer,
        body: ProviderAttributeRequestSchema,
        response: { ...errorResponses, 502: ErrorBodySchema },
      },
    },
    async (request) => deps.attribution.attributeWithProvider(request.body, request.id),
  );

  app.get('/v1/metrics', { config: { protected: true }, onRequest: guard, schema: { summary: 'The nine JSON counters', tags: ['metrics'], security: bearer, response: { 200: MetricsResponseSchema } } }, async () =>
    deps.metrics.snapshot(),
  );

  app.get('/v1/metrics/prometheus', { config: { protected: true }, onRequest: guard, schema: { summary: 'Prometheus text for the same counters', tags: ['metrics'], security: bearer } }, async (_request, reply) => {
    const { contentType, body } = await deps.metrics.prometheusText();
    return reply.type(contentType).send(body);
  });

  return app;
}
