/**
 * The models the gateway can route to, built once from the providers
 * section: lookup by model id, the small/large classes `auto` chooses from,
 * the fallback model of each provider and the `/v1/models` list.
 */
import type { ProviderConfig, ProviderModel, ProvidersSection } from './provider-config.ts';

export type Capability = 'chat' | 'completions' | 'embeddings';

export interface ModelRoute {
  provider: ProviderConfig;
  model: ProviderModel;
}

export class ModelCatalog {
  readonly providers: readonly ProviderConfig[];
  readonly #byId = new Map<string, ModelRoute>();

  constructor(providers: ProvidersSection) {
    this.providers = providers;
    for (const provider of providers) for (const model of provider.models) this.#byId.set(model.id, { provider, model });
  }

  /**
   * The baseline provider: the first one configured. The
   * `route_to_baseline_provider` rollback switch sends every AI call there
   * (docs/ai-gateway.md, Rollback switches).
   */
  get baselineProvider(): ProviderConfig | undefined {
    return this.providers[0];
  }

  get isEmpty(): boolean {
    return this.#byId.size === 0;
  }

  find(modelId: string): ModelRoute | undefined {
    return this.#byId.get(modelId);
  }

  /** First configured model of a size class that serves `capability`, in configuration order (of one provider when given). */
  firstOfClass(sizeClass: 'small' | 'large', capability: Capability, provider?: ProviderConfig): ModelRoute | undefined {
    for (const route of this.#byId.values()) {
      if (route.model.size_class === sizeClass && serves(route.model, capability) && (provider === undefined || route.provider === provider)) return route;
    }
    return undefined;
  }

  /** Models serving a capability, in configuration order. */
  withCapability(capability: Capability): ModelRoute[] {
    return [...this.#byId.values()].filter((r) => serves(r.model, capability));
  }

  all(): ModelRoute[] {
    return [...this.#byId.values()];
  }
}

export function serves(model: ProviderModel, capability: Capability): boolean {
  return (model.capabilities ?? ['chat', 'completions']).includes(capability);
}
