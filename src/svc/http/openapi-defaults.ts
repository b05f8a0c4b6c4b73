/**
 * What every operation of the served OpenAPI document carries, derived from
 * the route when the route does not say it itself, so a route added anywhere
 * lints clean (Redocly's recommended rules; test/api/openapi-lint.test.ts):
 * an `operationId` (method + path), a summary, a tag (the route group), and
 * the spec's error body for 4XX and 5XX. Only the document changes: route
 * validation and serialisation are untouched.
 */
import Type from 'typebox';
import { ERROR_TABLE } from '../errors.ts';
import { DEPRECATED_ROUTES } from './deprecation.ts';

/** The spec's error body as JSON Schema (the shape `errorBody` builds). */
export const ErrorBodySchema = Type.Object(
  {
    error: Type.Object({
      code: Type.Union(Object.keys(ERROR_TABLE).map((c) => Type.Literal(c))),
      message: Type.String(),
      work_unit_id: Type.Union([Type.String(), Type.Null()]),
      policy_bundle_id: Type.Union([Type.String(), Type.Null()]),
      retryable: Type.Boolean(),
      details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
  },
  { description: 'The error body every svc error answer carries (docs/errors.md).' },
);

/** `POST /v1/s3/objects/{id}` → `postV1S3ObjectsById`. */
export function operationIdFor(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((seg) => seg !== '')
    .map((seg) => (seg.startsWith(':') ? `by-${seg.slice(1)}` : seg))
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter((w) => w !== '');
  return [method.toLowerCase(), ...words.map((w) => w[0]!.toUpperCase() + w.slice(1))].join('');
}

/** The route group: the first path segment after `/v1` (`/v1/s3/objects` → `s3`). */
export function tagFor(url: string): string {
  const segs = url.split('/').filter((s) => s !== '');
  return (segs[0] === 'v1' ? segs[1] : segs[0]) ?? 'service';
}

type RouteSchema = Record<string, unknown> & { response?: Record<string, unknown>; tags?: string[]; summary?: string; operationId?: string };

/** The @fastify/swagger `transform`: fills in what the route left out. */
export function withOpenApiDefaults({ schema, url, route }: { schema: RouteSchema | undefined; url: string; route: { method: string | string[] } }): { schema: RouteSchema; url: string } {
  const method = Array.isArray(route.method) ? route.method[0]! : route.method;
  const s: RouteSchema = { ...(schema ?? {}) };
  s.operationId ??= operationIdFor(method, url);
  s.summary ??= `${method} ${url}`;
  s.tags ??= [tagFor(url)];
  if (DEPRECATED_ROUTES[`${method} ${url}`]) s.deprecated = true;
  const declared = s.response ?? {};
  // A route that declares no success shape still answers 2XX; say so (its body is described in docs/).
  const success = Object.keys(declared).some((k) => k.startsWith('2')) ? {} : { '2XX': { description: `Success: see docs/ for the ${tagFor(url)} body.` } };
  s.response = { ...success, ...declared, '4XX': declared['4XX'] ?? ErrorBodySchema, '5XX': declared['5XX'] ?? ErrorBodySchema };
  return { schema: s, url };
}
