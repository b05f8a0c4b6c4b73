/** Wires the plugin service from configuration (docs/plugins.md). */
import type { SvcConfig } from '../config/schema.ts';
import type { SvcMetrics } from '../observability/metrics.ts';
import type { PluginRepository } from '../store/repositories/plugins.ts';
import { PluginSandbox } from './plugin-sandbox.ts';
import { PluginService, type PluginServiceDeps } from './plugin-service.ts';
import { buildTrustList } from './trust-list.ts';

export function createPluginService(deps: {
  config: SvcConfig;
  repo: PluginRepository;
  ledger: PluginServiceDeps['ledger'];
  metrics: SvcMetrics;
  switchedOff: () => readonly string[];
  builtinAdapters: () => readonly string[];
}): { plugins: PluginService; close(): Promise<void> } {
  const c = deps.config.plugins;
  const sandbox = new PluginSandbox({ workers: c?.workers ?? 2 });
  const { metrics } = deps;
  const plugins = new PluginService({
    repo: deps.repo,
    trust: buildTrustList(c?.trusted_publishers ?? {}),
    sandbox,
    ledger: deps.ledger,
    limits: {
      maxTimeoutMs: c?.max_timeout_ms ?? 2000,
      maxMemoryBytes: c?.max_memory_bytes ?? 64 * 1024 * 1024,
      maxInputBytes: c?.max_input_bytes ?? 16 * 1024 * 1024,
      maxBundleBytes: c?.max_bundle_bytes ?? 4 * 1024 * 1024,
    },
    metrics: {
      signatureFailure: (stage) => metrics.pluginSignatureFailures.inc({ stage }),
      call: (plugin, outcome, seconds) => {
        metrics.pluginCalls.inc({ plugin, outcome });
        metrics.pluginCallSeconds.observe({ plugin }, seconds);
      },
      error: (plugin, reason) => metrics.pluginErrors.inc({ plugin, reason }),
    },
    switchedOff: deps.switchedOff,
    builtinAdapters: deps.builtinAdapters,
  });
  return { plugins, close: () => sandbox.close() };
}
