/**
 * Deprecated routes (Versioning 3; docs/versioning.md#deprecation). A route
 * listed in {@link DEPRECATED_ROUTES} keeps working through its deprecation
 * window and tells every caller, on every response:
 *
 * - `Deprecation: @<unix seconds>` — since when (RFC 9745);
 * - `Sunset: <HTTP-date>` — when it stops answering (RFC 8594);
 * - `Link: <guide>; rel="deprecation"` and, when there is one,
 *   `<successor>; rel="successor-version"`;
 *
 * and the OpenAPI operation is marked `deprecated: true` (openapi-defaults.ts). No route is
 * deprecated in v1 today; the table is where one is added.
 */
import type { FastifyInstance } from 'fastify';

export interface RouteDeprecation {
  /** When the deprecation was announced (ISO 8601). */
  deprecated_at: string;
  /** When the route stops answering (ISO 8601); at least the deprecation window after `deprecated_at`. */
  sunset: string;
  /** The migration guide (docs/migrations/<from>-to-<to>.md, published with the release). */
  guide: string;
  /** The route that replaces it, e.g. `/v2/...`. */
  successor?: string;
}

/** Minimum time between `deprecated_at` and `sunset` (docs/versioning.md). */
export const DEPRECATION_WINDOW_DAYS = 180;

/** `'<METHOD> <route url>'` → its deprecation. */
export const DEPRECATED_ROUTES: Readonly<Record<string, RouteDeprecation>> = {};

export function deprecationHeaders(d: RouteDeprecation): Record<string, string> {
  const links = [`<${d.guide}>; rel="deprecation"`, ...(d.successor ? [`<${d.successor}>; rel="successor-version"`] : [])];
  return {
    Deprecation: `@${Math.floor(Date.parse(d.deprecated_at) / 1000)}`,
    Sunset: new Date(d.sunset).toUTCString(),
    Link: links.join(', '),
  };
}

/** Refuses a table entry whose window is shorter than the policy or whose dates do not parse. */
export function checkDeprecation(key: string, d: RouteDeprecation): void {
  const from = Date.parse(d.deprecated_at);
  const to = Date.parse(d.sunset);
  if (!Number.isFinite(from) || !Number.isFinite(to)) throw new Error(`deprecation of ${key}: dates must be ISO 8601`);
  if (to - from < DEPRECATION_WINDOW_DAYS * 86_400_000) throw new Error(`deprecation of ${key}: sunset must be at least ${DEPRECATION_WINDOW_DAYS} days after deprecated_at`);
}

/**
 * Adds the headers to every response of a deprecated route (the OpenAPI
 * `deprecated` flag is set by openapi-defaults.ts from the same table).
 */
export function registerDeprecations(server: FastifyInstance, table: Readonly<Record<string, RouteDeprecation>> = DEPRECATED_ROUTES): void {
  const headersByRoute = new Map<string, Record<string, string>>();
  for (const [key, d] of Object.entries(table)) {
    checkDeprecation(key, d);
    headersByRoute.set(key, deprecationHeaders(d));
  }
  if (headersByRoute.size === 0) return;
  // Set when the request arrives, not in onSend: a reply written on the raw response (byte-response.ts,
  // borrowed pieces) skips onSend but takes the reply's headers as they are by then.
  server.addHook('onRequest', async (request, reply) => {
    const headers = headersByRoute.get(`${request.method} ${request.routeOptions.url}`);
    if (headers) reply.headers(headers);
  });
}
