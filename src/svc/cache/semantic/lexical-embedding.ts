/**
 * The built-in embedding: deterministic, dependency-free, no weights.
 * Features are hashed character trigrams of each word (with boundary marks)
 * plus whole words, signed-hashed into a fixed number of dimensions
 * ("feature hashing") and L2-normalised, so cosine similarity is a dot
 * product. It captures lexical paraphrase (reordering, inflection, small
 * rewording), not synonyms; docs/caches.md says when to configure a
 * provider embedding instead.
 */
import { createHash } from 'node:crypto';

export const LEXICAL_DIMENSIONS = 512;

function hash32(feature: string): number {
  // FNV-1a: fast and stable across processes and versions.
  let h = 0x811c9dc5;
  for (let i = 0; i < feature.length; i++) {
    h ^= feature.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function addFeature(vector: Float64Array, feature: string, weight: number): void {
  const h = hash32(feature);
  const index = h % vector.length;
  const sign = (h & 0x80000000) === 0 ? 1 : -1;
  vector[index] = (vector[index] ?? 0) + sign * weight;
}

/** Embeds an already normalised query (see query-normaliser.ts). */
export function lexicalEmbedding(normalisedText: string, dimensions = LEXICAL_DIMENSIONS): number[] {
  const vector = new Float64Array(dimensions);
  for (const word of normalisedText.split(' ')) {
    if (word.length === 0) continue;
    addFeature(vector, `w:${word}`, 1.5);
    const padded = `<${word}>`;
    for (let i = 0; i + 3 <= padded.length; i++) addFeature(vector, `c:${padded.slice(i, i + 3)}`, 1);
  }
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return Array.from(vector, (x) => x / norm);
}

/** Cosine similarity of two vectors (0 when lengths differ or either is zero). */
export function cosineSimilarity(a: readonly number[], b: readonly number[]): number {
  if (a.length !== b.length || a.length === 0) return 0;
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** Stable identifier of this embedding function; vectors of different embedders are never compared. */
export const LEXICAL_EMBEDDER_ID = `lexical-ngram@1/${LEXICAL_DIMENSIONS}`;

/** Short digest of a vector, for ledger payloads (never the vector itself). */
export function embeddingDigest(vector: readonly number[]): string {
  return createHash('sha256').update(Float64Array.from(vector)).digest('hex').slice(0, 16);
}
