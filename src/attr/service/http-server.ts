/**
 * The fastify server of attr: security headers and request ids on every
 * response, the protected-route guard, schema-validated bodies, one error
 * handler, and the routes — each a thin adapter over the attribution domain,
 * the readiness gate or the metrics registry.
 */
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import type { AttributionService, AttributionTiming, ReleasedAttribution } from './attribution-service.ts';
import type { BearerAuthenticator } from './bearer-auth.ts';
import type { ClientIdentity } from './client-identity.ts';
import { toAttrError } from './http-errors.ts';
import { protectedRouteGuard } from './protected-route-guard.ts';
import { installJsonBodyParsing } from './json-body-parser.ts';
import { newRequestId } from './request-id.ts';
import { AttributeRequestSchema, ProviderAttributeRequestSchema, type AttributeRequest, type ProviderAttributeRequest } from './request-schemas.ts';
import { ANY_CLIENT_ERROR, described, errorResponses, HealthBodySchema, READINESS_BODY_SCHEMA_ID, ReadinessBodySchema, type ReadinessBody } from './response-schemas.ts';
import { AttributionResponseSchema } from '../schemas/attribution-response.ts';
import { REQUEST_ID_HEADER, SECURITY_HEADERS } from './security-headers.ts';
import { MetricsResponseSchema, type ServiceMetrics } from './service-metrics.ts';
import type { SlidingWindowRateLimiter } from './sliding-window-rate-limiter.ts';
import { AttrError, attrErrorBody } from '../errors.ts';
import type { ReadinessGate } from '../readiness/readiness-gate.ts';
import { DiscoveryManifestSchema, type DiscoveryManifest } from '../readiness/artifact-schemas.ts';

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
  /** Send `Server-Timing` with each attribution (ATTR_SERVICE_SERVER_TIMING=1; decision 171). */
  serverTiming: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Protected routes: failures are counted as fail-closed (blocked_requests_total). */
    protected?: boolean;
  }
}

const PROTECTED_ERRORS = [401, 429, 500, 503] as const;
const BODY_ERRORS = [400, 413, 415] as const;

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
      info: {
        title: 'attr source-attribution service',
        version: deps.serviceVersion,
        description: 'Attributes answers to registered sources and returns a verifiable source footer. Errors: { error: { code, message, retryable, details? } }.',
        license: { name: 'UNLICENSED (proprietary)' },
      },
      servers: [{ url: 'http://127.0.0.1:8787', description: 'attr-service on its template defaults; set your deployment URL' }],
      tags: [
        { name: 'public', description: 'Liveness, readiness and discovery; no authentication' },
        { name: 'attribution', description: 'Attribute an answer and return its source footer (bearer token)' },
        { name: 'metrics', description: 'Counters (bearer token)' },
      ],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
  });
  // Responses are serialized as built (JSON.stringify): the response schemas document the wire format for
  // /openapi.json; they must not reshape or drop fields of hashed documents.
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));

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

  app.get(
    '/healthz',
    { schema: { operationId: 'getHealth', summary: 'Liveness', tags: ['public'], security: [], response: { 200: described(HealthBodySchema, 'The process is alive'), ...ANY_CLIENT_ERROR, ...errorResponses(500) } } },
    async () => ({ status: 'ok' }),
  );

  app.get(
    '/readyz',
    {
      schema: {
        operationId: 'getReadiness',
        summary: 'Readiness: every check must pass before attribution is served',
        tags: ['public'],
        security: [],
        response: { ...ANY_CLIENT_ERROR, 200: described(ReadinessBodySchema, 'Ready: every check passed'), 503: described(ReadinessBodySchema, 'Not ready: at least one check failed'), ...errorResponses(500) },
      },
    },
    async (_request, reply) => {
      const evaluation = await deps.gate.evaluate();
      const body: ReadinessBody = { schema: READINESS_BODY_SCHEMA_ID, status: evaluation.ready ? 'ready' : 'not_ready', ...evaluation };
      return reply.status(evaluation.ready ? 200 : 503).send(body);
    },
  );

  app.get(
    '/.well-known/attr.json',
    {
      schema: {
        operationId: 'getDiscoveryManifest',
        summary: 'Discovery manifest (attr-discovery-manifest/v1)',
        tags: ['public'],
        security: [],
        response: { 200: described(DiscoveryManifestSchema, 'The configured discovery manifest'), ...ANY_CLIENT_ERROR, ...errorResponses(500) },
      },
    },
    async () => deps.discoveryManifest,
  );

  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.post<{ Body: AttributeRequest }>(
    '/v1/attribute',
    {
      config: { protected: true },
      onRequest: guard,
      schema: {
        operationId: 'attribute',
        summary: 'Attribute an answer (attr-service-attribution-response/v1)',
        tags: ['attribution'],
        security: bearer,
        body: AttributeRequestSchema,
        response: { 200: described(AttributionResponseSchema, 'The attribution response: `ready` or `blocked` with its source footer'), ...errorResponses(...BODY_ERRORS, ...PROTECTED_ERRORS) },
      },
    },
    async (request, reply) => sendAttribution(reply, await deps.attribution.attribute(request.body, request.id), deps.serverTiming),
  );

  app.post<{ Body: ProviderAttributeRequest }>(
    '/v1/provider/attribute',
    {
      config: { protected: true },
      onRequest: guard,
      schema: {
        operationId: 'attributeWithProvider',
        summary: 'Call an allowlisted provider, attribute its answer, then release it (attr-service-attribution-response/v1)',
        tags: ['attribution'],
        security: bearer,
        body: ProviderAttributeRequestSchema,
        response: {
          200: described(AttributionResponseSchema, "The provider's answer attributed: the same response and `source_footer` as /v1/attribute"),
          ...errorResponses(...BODY_ERRORS, ...PROTECTED_ERRORS, 502),
        },
      },
    },
    async (request, reply) => sendAttribution(reply, await deps.attribution.attributeWithProvider(request.body, request.id), deps.serverTiming),
  );

  app.get(
    '/v1/metrics',
    {
      config: { protected: true },
      onRequest: guard,
      schema: {
        operationId: 'getMetrics',
        summary: 'The nine JSON counters',
        tags: ['metrics'],
        security: bearer,
        response: { 200: described(MetricsResponseSchema, 'The counters'), ...errorResponses(401, 429, 500) },
      },
    },
    async () => deps.metrics.snapshot(),
  );

  app.get(
    '/v1/metrics/prometheus',
    {
      config: { protected: true },
      onRequest: guard,
      schema: {
        operationId: 'getPrometheusMetrics',
        summary: 'Prometheus text for the same counters',
        tags: ['metrics'],
        security: bearer,
        response: {
          200: { description: 'Prometheus text exposition format 0.0.4', content: { 'text/plain': { schema: { type: 'string' } } } },
          ...errorResponses(401, 429, 500),
        },
      },
    },
    async (_request, reply) => {
    const { contentType, body } = await deps.metrics.prometheusText();
    return reply.type(contentType).send(body);
  });

  return app;
}

/** The response arrives as its JSON bytes, serialised where the engine ran: sent as they are, never parsed or re-encoded here. */
function sendAttribution(reply: FastifyReply, released: ReleasedAttribution, serverTiming: boolean): FastifyReply {
  if (serverTiming) reply.header('server-timing', serverTimingHeader(released.timing));
  return reply.type('application/json; charset=utf-8').send(released.body);
}

/** `engine;dur=3.412, handoff;dur=0.301, …` (W3C Server Timing), milliseconds with µs resolution. */
export function serverTimingHeader(timing: AttributionTiming): string {
  return (Object.keys(timing) as Array<keyof AttributionTiming>).map((name) => `${name};dur=${timing[name].toFixed(3)}`).join(', ');
}
