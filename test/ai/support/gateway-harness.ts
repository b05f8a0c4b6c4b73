/**
 * A complete AI gateway over the mock upstream with in-memory stores, the
 * real policy engine (built-in bundle) and recorders that keep what the
 * gateway wrote (work units, manifests, ledger events, counters) for
 * assertions. Used by test/ai and the benchmarks.
 */
import { makePrincipal, type Principal } from '../../../src/svc/auth/principal.ts';
import type { CacheLedgerEvent, CacheLedgerSink } from '../../../src/svc/cache/cache-context.ts';
import { ExactCache } from '../../../src/svc/cache/exact/exact-cache.ts';
import type { ExactCacheStore } from '../../../src/svc/cache/exact/exact-cache-store.ts';
import { MemoryExactCacheStore } from '../../../src/svc/cache/exact/memory-exact-cache-store.ts';
import { MemorySemanticCacheStore } from '../../../src/svc/cache/semantic/memory-semantic-cache-store.ts';
import { SemanticCache } from '../../../src/svc/cache/semantic/semantic-cache.ts';
import { AiGateway, type AiResult } from '../../../src/svc/ai/gateway/ai-gateway.ts';
import type { AiComputeManifest, AiCounter, AiRecorder, AiRequestContext, AiTelemetry, AiWorkUnitStart } from '../../../src/svc/ai/gateway/ports.ts';
import { ModelCatalog } from '../../../src/svc/ai/providers/model-catalog.ts';
import { type ProvidersSection, parseProvidersSection } from '../../../src/svc/ai/providers/provider-config.ts';
import { UpstreamPool } from '../../../src/svc/ai/providers/upstream-pool.ts';
import { builtinBundle } from '../../../src/svc/policy/default-bundle.ts';
import { PolicyEngine } from '../../../src/svc/policy/policy-engine.ts';
import type { SseFrame } from '../../../src/svc/ai/streaming/sse-frames.ts';
import { type MockOpenAI, type MockOptions, startMockOpenAI } from '../../fixtures/mock-openai/mock-openai-server.ts';

export class MemoryLedger implements CacheLedgerSink {
  readonly events: CacheLedgerEvent[] = [];
  async append(event: CacheLedgerEvent): Promise<unknown> {
    this.events.push(event);
    return event;
  }
  ofType(type: string): CacheLedgerEvent[] {
    return this.events.filter((e) => e.type === type);
  }
}

export class MemoryRecorder implements AiRecorder {
  readonly starts: AiWorkUnitStart[] = [];
  readonly manifests: AiComputeManifest[] = [];
  async begin(_ctx: AiRequestContext, start: AiWorkUnitStart): Promise<void> {
    this.starts.push(start);
  }
  async complete(_ctx: AiRequestContext, manifest: AiComputeManifest): Promise<void> {
    this.manifests.push(manifest);
  }
  manifest(workUnitId: string): AiComputeManifest | undefined {
    return this.manifests.find((m) => m.work_unit_id === workUnitId);
  }
}

export class CountingTelemetry implements AiTelemetry {
  readonly counts = new Map<string, number>();
  readonly overheadSeconds: number[] = [];
  count(metric: AiCounter, value = 1, labels?: Record<string, string>): void {
    const key = labels ? `${metric}${JSON.stringify(labels)}` : metric;
    this.counts.set(key, (this.counts.get(key) ?? 0) + value);
    if (labels) this.counts.set(metric, (this.counts.get(metric) ?? 0) + value);
  }
  observeOverhead(seconds: number): void {
    this.overheadSeconds.push(seconds);
  }
  get(metric: string): number {
    return this.counts.get(metric) ?? 0;
  }
}

export const MOCK_MODELS = {
  small: 'mock-small',
  large: 'mock-large',
  embed: 'mock-embed',
  /** A second small model used as the broken primary in fallback tests. */
  flaky: 'mock-flaky',
} as const;

export function mockProviders(url: string, extra: Partial<ProvidersSection[number]> = {}): ProvidersSection {
  return parseProvidersSection(
    [
      {
        name: 'mock',
        base_url: url,
        api_key_env: 'MOCK_OPENAI_KEY',
        models: [
          { id: MOCK_MODELS.small, size_class: 'small', price: { input_per_1k: 0.00015, output_per_1k: 0.0006 } },
          { id: MOCK_MODELS.large, size_class: 'large', price: { input_per_1k: 0.0025, output_per_1k: 0.01 } },
          { id: MOCK_MODELS.flaky, size_class: 'small' },
          { id: MOCK_MODELS.embed, size_class: 'small', capabilities: ['embeddings'] },
        ],
        timeouts: { request_ms: 2000, connect_ms: 1000, stream_idle_ms: 2000 },
        ...extra,
      },
    ],
    'test providers',
  );
}

export interface Harness {
  mock: MockOpenAI;
  gateway: AiGateway;
  ledger: MemoryLedger;
  recorder: MemoryRecorder;
  telemetry: CountingTelemetry;
  exactCache: ExactCache;
  semanticCache: SemanticCache;
  policy: PolicyEngine;
  ctx(tenant?: string, roles?: Principal['roles']): AiRequestContext;
  close(): Promise<void>;
}

export interface HarnessOptions {
  mock?: MockOptions;
  providerExtra?: Partial<ProvidersSection[number]>;
  now?: () => number;
  /** Replaces the memory recorder (durability tests control when records commit). */
  recorder?: AiRecorder;
  /** Replaces the memory exact cache store (failure injection). */
  exactStore?: ExactCacheStore;
  onCacheWriteError?: (err: unknown) => void;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const mock = await startMockOpenAI(options.mock);
  const catalog = new ModelCatalog(mockProviders(mock.url, options.providerExtra));
  const upstreams = new UpstreamPool(catalog, { MOCK_OPENAI_KEY: 'sk-test-not-a-real-key' });
  const ledger = new MemoryLedger();
  const recorder = new MemoryRecorder();
  const telemetry = new CountingTelemetry();
  const now = options.now ?? Date.now;
  const exactCache = new ExactCache({ store: options.exactStore ?? new MemoryExactCacheStore(), ledger, now });
  const semanticCache = new SemanticCache({ store: new MemorySemanticCacheStore(), ledger, now });
  const policy = new PolicyEngine(builtinBundle());
  const gateway = new AiGateway({
    catalog,
    upstreams,
    policy,
    exactCache,
    semanticCache,
    recorder: options.recorder ?? recorder,
    ledger,
    telemetry,
    ...(options.onCacheWriteError ? { onCacheWriteError: options.onCacheWriteError } : {}),
  });
  let n = 0;
  return {
    mock,
    gateway,
    ledger,
    recorder,
    telemetry,
    exactCache,
    semanticCache,
    policy,
    ctx: (tenant, roles = ['writer']) => ({ principal: makePrincipal(`tester-${tenant ?? 'unbound'}`, roles, tenant), traceId: `tr_test${++n}` }),
    close: async () => {
      await upstreams.close();
      await mock.close();
    },
  };
}

/** The JSON body of a non-streaming result (fails the test otherwise). */
export function jsonBody<T = Record<string, any>>(result: AiResult): T {
  if (result.kind !== 'json') throw new Error('expected a JSON result');
  return result.body as T;
}

/** Drains a gateway stream into its frames. */
export async function collect(frames: AsyncIterable<SseFrame>): Promise<SseFrame[]> {
  const out: SseFrame[] = [];
  for await (const f of frames) out.push(f);
  return out;
}

/** Concatenated assistant text of chat chunk frames. */
export function streamedText(frames: readonly SseFrame[]): string {
  let text = '';
  for (const f of frames) {
    if (!('data' in f)) continue;
    const choices = (f.data as { choices?: Array<{ delta?: { content?: string } }> }).choices ?? [];
    for (const c of choices) text += c.delta?.content ?? '';
  }
  return text;
}
