/**
 * Embeddings-backed semantic cache (docs/semantic-cache.md, "Embeddings
 * mode"): vectors from the `/embeddings` route of a configured
 * OpenAI-compatible provider (`semantic_cache_embedding_model`), for the
 * normalised query, cached in process (bounded, least recently used) so a
 * repeated question costs no upstream call. The meaning guard still runs on
 * top. Entries are partitioned by embedder id, so switching models never
 * compares vectors of two models.
 */
import { SvcError } from '../../errors.ts';
import type { Embedder } from './embedder.ts';

/** Without a calibration, provider vectors are accepted from this cosine similarity (the guard still applies). */
export const PROVIDER_EMBEDDING_DEFAULT_THRESHOLD = 0.92;

export interface EmbeddingsClient {
  postJson(path: string, body: unknown): Promise<unknown>;
}

export class ProviderEmbedder implements Embedder {
  readonly id: string;
  readonly similarityThreshold: number;
  readonly similarity = 'cosine' as const;
  readonly #client: EmbeddingsClient;
  readonly #model: string;
  readonly #cache = new Map<string, number[]>();
  readonly #maxCached: number;
  #dims: number | undefined;

  constructor(o: { provider: string; model: string; client: EmbeddingsClient; threshold?: number; maxCached?: number }) {
    this.id = `provider:${o.provider}/${o.model}`;
    this.similarityThreshold = o.threshold ?? PROVIDER_EMBEDDING_DEFAULT_THRESHOLD;
    this.#client = o.client;
    this.#model = o.model;
    this.#maxCached = o.maxCached ?? 10_000;
  }

  async embed(normalisedText: string): Promise<number[]> {
    const cached = this.#cache.get(normalisedText);
    if (cached) {
      // Refresh recency: Map keeps insertion order, so the oldest key is the least recently used.
      this.#cache.delete(normalisedText);
      this.#cache.set(normalisedText, cached);
      return cached;
    }
    const vector = this.#vectorOf(await this.#client.postJson('/embeddings', { model: this.#model, input: normalisedText }));
    this.#cache.set(normalisedText, vector);
    if (this.#cache.size > this.#maxCached) this.#cache.delete(this.#cache.keys().next().value!);
    return vector;
  }

  #vectorOf(body: unknown): number[] {
    const vector = (body as { data?: Array<{ embedding?: unknown }> } | null)?.data?.[0]?.embedding;
    if (!Array.isArray(vector) || vector.length === 0 || !vector.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      throw new SvcError('model_route_failed', `embeddings from ${this.id} are not a list of numbers`);
    }
    this.#dims ??= vector.length;
    if (vector.length !== this.#dims) throw new SvcError('model_route_failed', `embeddings from ${this.id} changed dimensions (${this.#dims} → ${vector.length})`);
    return vector as number[];
  }
}
