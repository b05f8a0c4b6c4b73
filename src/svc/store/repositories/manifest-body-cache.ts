/**
 * Parsed bodies of large byte-object manifests, by manifest id (decision
 * 196). A manifest's body — its chunk list above all — never changes after
 * the row is written (only the state columns do, and they are read from the
 * row every time), so a range read of a large object need not read and
 * `JSON.parse` the whole body again: ~0.6 ms and ~200 KB of young garbage
 * for a 50 MiB object (~700 chunks), ~12 ms for 1 GiB, on every request.
 *
 * Only manifests of at least {@link MIN_CACHED_CHUNKS} chunks are kept
 * (smaller bodies parse in microseconds), bounded by the chunk references
 * held in all ({@link MAX_CACHED_CHUNK_REFS}, ~10–15 MB), least recently
 * used dropped first. An entry is used only when the row still carries the
 * same `sha256`, `chunk_count` and `created_at` as the cached body: a
 * manifest written and rolled back, then imported again under the same id
 * with other contents, is read afresh. The cached object is frozen with its
 * chunk list; callers get a shallow copy with the row's state overlaid.
 */
import type { ByteManifest } from '../../manifests/manifest.ts';

/** Manifests with fewer chunks are parsed every time (cheap) and never cached. */
export const MIN_CACHED_CHUNKS = 64;
/** Chunk references held over all cached manifests. */
export const MAX_CACHED_CHUNK_REFS = 65_536;

/** The row columns an entry must still match. */
export interface BodyFingerprint {
  sha256: string;
  chunk_count: number;
  created_at: string;
}

export class ManifestBodyCache {
  readonly #maxRefs: number;
  readonly #entries = new Map<string, ByteManifest>();
  #refs = 0;

  constructor(maxRefs = MAX_CACHED_CHUNK_REFS) {
    this.#maxRefs = maxRefs;
  }

  /** The cached body of `id` if it still matches the row's fingerprint (then it becomes the most recently used). */
  get(id: string, row: BodyFingerprint): ByteManifest | undefined {
    const body = this.#entries.get(id);
    if (!body) return undefined;
    if (body.sha256 !== row.sha256 || body.chunks.length !== Number(row.chunk_count) || body.created_at !== row.created_at) {
      this.#drop(id, body);
      return undefined;
    }
    this.#entries.delete(id);
    this.#entries.set(id, body);
    return body;
  }

  /** Keeps `body` (parsed from the row of `id`) when it is large enough to be worth it; returns it frozen. */
  remember(id: string, body: ByteManifest): ByteManifest {
    const refs = body.chunks.length;
    if (refs < MIN_CACHED_CHUNKS || refs > this.#maxRefs / 2) return body;
    Object.freeze(body.chunks);
    Object.freeze(body);
    const old = this.#entries.get(id);
    if (old) this.#drop(id, old);
    this.#entries.set(id, body);
    this.#refs += refs;
    for (const [oldest, value] of this.#entries) {
      if (this.#refs <= this.#maxRefs) break;
      this.#drop(oldest, value);
    }
    return body;
  }

  /** Entries and chunk references held (tests). */
  get size(): { manifests: number; chunkRefs: number } {
    return { manifests: this.#entries.size, chunkRefs: this.#refs };
  }

  #drop(id: string, body: ByteManifest): void {
    this.#entries.delete(id);
    this.#refs -= body.chunks.length;
  }
}
