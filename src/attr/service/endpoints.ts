/** The HTTP surface, listed once: the discovery manifest and docs are built from it. */
import type { EndpointDescription } from '../readiness/readiness-inputs.ts';

export const ENDPOINTS: readonly EndpointDescription[] = Object.freeze([
  { method: 'GET', path: '/healthz', auth: 'none' },
  { method: 'GET', path: '/readyz', auth: 'none' },
  { method: 'GET', path: '/.well-known/attr.json', auth: 'none' },
  { method: 'GET', path: '/openapi.json', auth: 'none' },
  { method: 'POST', path: '/v1/attribute', auth: 'bearer' },
  { method: 'POST', path: '/v1/provider/attribute', auth: 'bearer' },
  { method: 'GET', path: '/v1/metrics', auth: 'bearer' },
  { method: 'GET', path: '/v1/metrics/prometheus', auth: 'bearer' },
]);
