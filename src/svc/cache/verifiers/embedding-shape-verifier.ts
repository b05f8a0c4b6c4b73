/**
 * `embedding_shape@1`: the value is an embeddings response (`{ data: [{
 * embedding }] }`) or a bare vector list, every vector has finite numbers
 * and one shared length (or the declared `dimensions`), and the count
 * matches when declared. Base64-encoded vectors are decoded as float32 first.
 */
import type { Verifier } from './verifier.ts';
import { isRecord } from './value-text.ts';

function vectorsOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (isRecord(value) && Array.isArray(value.data)) return value.data.map((d) => (isRecord(d) ? d.embedding : d));
  return undefined;
}

function asNumbers(v: unknown): number[] | undefined {
  if (Array.isArray(v)) return v.every((x) => typeof x === 'number') ? (v as number[]) : undefined;
  if (typeof v === 'string') {
    const bytes = Buffer.from(v, 'base64');
    if (bytes.length === 0 || bytes.length % 4 !== 0) return undefined;
    const out: number[] = [];
    for (let i = 0; i < bytes.length; i += 4) out.push(bytes.readFloatLE(i));
    return out;
  }
  return undefined;
}

export const embeddingShapeVerifier: Verifier<{ type: 'embedding_shape'; dimensions?: number; count?: number }> = {
  name: 'embedding_shape',
  version: 1,
  check(value, spec) {
    const vectors = vectorsOf(value);
    if (!vectors || vectors.length === 0) return { passed: false, reason: 'no vectors' };
    if (spec.count !== undefined && vectors.length !== spec.count) return { passed: false, reason: `expected ${spec.count} vectors, got ${vectors.length}` };
    let length = spec.dimensions;
    for (const raw of vectors) {
      const v = asNumbers(raw);
      if (!v || v.length === 0) return { passed: false, reason: 'a vector is not a list of numbers' };
      if (!v.every(Number.isFinite)) return { passed: false, reason: 'a vector has a non-finite number' };
      if (length === undefined) length = v.length;
      else if (v.length !== length) return { passed: false, reason: `vector length ${v.length} differs from ${length}` };
    }
    return { passed: true };
  },
};
