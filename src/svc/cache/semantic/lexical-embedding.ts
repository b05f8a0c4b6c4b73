/**
 * Cosine similarity (the judgement of provider and caller vectors), and the
 * hashed n-gram embedding the built-in cache used before the word alignment
 * (issue 11): hashed character trigrams of each word plus whole words,
 * signed-hashed into 512 dimensions and L2-normalised. It is kept for the
 * benchmark, whose curve shows what a bare cosine threshold on it accepts.
 */

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
