/** One keep-alive HTTP client per configured provider, created once at start. */
import type { ModelCatalog } from './model-catalog.ts';
import { OpenAICompatibleClient } from './openai-compatible-client.ts';

export class UpstreamPool {
  readonly #clients = new Map<string, OpenAICompatibleClient>();

  constructor(catalog: ModelCatalog, env: NodeJS.ProcessEnv = process.env) {
    for (const provider of catalog.providers) this.#clients.set(provider.name, new OpenAICompatibleClient(provider, env));
  }

  client(providerName: string): OpenAICompatibleClient {
    const client = this.#clients.get(providerName);
    if (!client) throw new Error(`no client for provider '${providerName}'`);
    return client;
  }

  async close(): Promise<void> {
    await Promise.all([...this.#clients.values()].map((c) => c.close()));
  }
}
