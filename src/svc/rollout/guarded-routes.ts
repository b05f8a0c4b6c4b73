/**
 * Which requests feed the SLO guardrail: the optimisation hot path (work
 * units, plans, the AI and object gateways, caches). Admin, ledger (its SSE
 * stream is long-lived by design), reports and health are left out so they
 * cannot trip or mask it.
 */
const GUARDED_PREFIXES = ['/v1/work-units', '/v1/plans', '/v1/chat/completions', '/v1/completions', '/v1/embeddings', '/v1/s3/', '/v1/cache/'];

export function isGuardedRoute(url: string): boolean {
  const pathOnly = url.split('?', 1)[0]!;
  return GUARDED_PREFIXES.some((p) => pathOnly.startsWith(p));
}
