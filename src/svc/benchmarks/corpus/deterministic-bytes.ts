/**
 * Deterministic pseudo-random sources for the benchmark corpus. Same seed,
 * same bytes, on every machine and every run, so results are comparable
 * across runs and the corpus never needs to be downloaded or stored.
 */
import { createCipheriv, createHash } from 'node:crypto';

/**
 * `size` bytes of AES-256-CTR keystream keyed by SHA-256(seed): statistically
 * random (incompressible), generated at memory speed with AES-NI.
 */
export function keystreamBytes(seed: string, size: number): Buffer {
  const key = createHash('sha256').update(`key:${seed}`).digest();
  const iv = createHash('sha256').update(`iv:${seed}`).digest().subarray(0, 16);
  return createCipheriv('aes-256-ctr', key, iv).update(Buffer.alloc(size));
}

/** A small fast PRNG (xorshift32) for structured data: numbers, picks from lists. */
export class SeededRandom {
  #state: number;

  constructor(seed: string) {
    const digest = createHash('sha256').update(`prng:${seed}`).digest();
    this.#state = digest.readUInt32BE(0) || 0x9e3779b9;
  }

  /** Uniform integer in [0, 2^32). */
  nextUint32(): number {
    let x = this.#state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.#state = x >>> 0;
    return this.#state;
  }

  /** Uniform integer in [0, n). */
  below(n: number): number {
    return this.nextUint32() % n;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)]!;
  }
}
