/**
 * The `X-SVC-*` response headers. Only ids, enums and bundle ids go here —
 * never prompt, payload or object-key text (design rule 7).
 */
import type { FastifyReply } from 'fastify';

export interface WorkUnitHeaderValues {
  workUnitId?: string | null | undefined;
  manifestId?: string | null | undefined;
  contract?: string | null | undefined;
  policyBundleId?: string | null | undefined;
  mode?: string | null | undefined;
  cache?: string | null | undefined;
  route?: string | null | undefined;
  /** `<source>:<threshold>:<embedder or calibration id>` of a semantic hit (docs/semantic-cache.md). */
  semanticOperatingPoint?: string | null | undefined;
}

const NAMES: Record<keyof WorkUnitHeaderValues, string> = {
  workUnitId: 'X-SVC-Work-Unit-ID',
  manifestId: 'X-SVC-Manifest-ID',
  contract: 'X-SVC-Contract',
  policyBundleId: 'X-SVC-Policy-Bundle',
  mode: 'X-SVC-Mode',
  cache: 'X-SVC-Cache',
  route: 'X-SVC-Route',
  semanticOperatingPoint: 'X-SVC-Semantic-Operating-Point',
};

/** Header values are ids and enum words; anything else is dropped rather than risk leaking text. */
const SAFE = /^[A-Za-z0-9_.:@/-]{1,200}$/;
/** The pairs once, not per response (every answered AI request sets these). */
const HEADER_PAIRS = Object.entries(NAMES) as ReadonlyArray<[keyof WorkUnitHeaderValues, string]>;

export function setWorkUnitHeaders(reply: FastifyReply, values: WorkUnitHeaderValues): void {
  for (const [key, header] of HEADER_PAIRS) {
    const v = values[key];
    if (typeof v === 'string' && SAFE.test(v)) reply.header(header, v);
  }
}
