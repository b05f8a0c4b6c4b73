/**
 * Process metrics (`svc_process_*`) from prom-client's default collectors,
 * minus the three that break the Prometheus naming rules: prom-client exports
 * `nodejs_active_{handles,requests,resources}_total` as gauges, and
 * `promtool check metrics` rejects `_total` on anything but a counter. The
 * same numbers stay available, grouped by type, in
 * `svc_process_nodejs_active_{handles,requests,resources}` (sum them for the total).
 */
import { type Registry, collectDefaultMetrics } from 'prom-client';

export const PROCESS_METRICS_PREFIX = 'svc_process_';

/** Gauges prom-client names like counters; removed so `/metrics` lints clean. */
const MISNAMED_GAUGES = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export function collectProcessMetrics(registry: Registry): void {
  collectDefaultMetrics({ register: registry, prefix: PROCESS_METRICS_PREFIX });
  for (const name of MISNAMED_GAUGES) registry.removeSingleMetric(PROCESS_METRICS_PREFIX + name);
}
