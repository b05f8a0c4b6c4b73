/**
 * Cheap tests that predict when zstd cannot pay, so that the ingest path does
 * not spend CPU compressing data that will be stored raw anyway:
 *
 * 1. Known compressed or encrypted container formats, by the magic bytes at
 *    the start of the object (a chunk in the middle of a gzip file has no
 *    magic of its own, so the verdict is taken once per object and applies to
 *    all its chunks).
 * 2. Byte entropy of a sample of the chunk: data above
 *    {@link INCOMPRESSIBLE_ENTROPY_BITS} bits per byte (random, encrypted,
 *    compressed) does not shrink by the threshold that keeping a compressed
 *    copy requires.
 *
 * Both are predictions; the codec still checks the actual saving of every
 * chunk it does compress (chunk-codec.ts).
 */

/** Magic numbers of formats whose payload is already compressed or encrypted. */
const COMPRESSED_MAGICS: ReadonlyArray<{ format: string; offset: number; bytes: readonly number[] }> = [
  { format: 'gzip', offset: 0, bytes: [0x1f, 0x8b] },
  { format: 'zstd', offset: 0, bytes: [0x28, 0xb5, 0x2f, 0xfd] },
  { format: 'zip', offset: 0, bytes: [0x50, 0x4b, 0x03, 0x04] },
  { format: 'bzip2', offset: 0, bytes: [0x42, 0x5a, 0x68] },
  { format: 'xz', offset: 0, bytes: [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00] },
  { format: '7z', offset: 0, bytes: [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c] },
  { format: 'lz4', offset: 0, bytes: [0x04, 0x22, 0x4d, 0x18] },
  { format: 'png', offset: 0, bytes: [0x89, 0x50, 0x4e, 0x47] },
  { format: 'jpeg', offset: 0, bytes: [0xff, 0xd8, 0xff] },
  { format: 'gif', offset: 0, bytes: [0x47, 0x49, 0x46, 0x38] },
  { format: 'webp', offset: 8, bytes: [0x57, 0x45, 0x42, 0x50] },
  { format: 'mp4', offset: 4, bytes: [0x66, 0x74, 0x79, 0x70] },
  { format: 'ogg', offset: 0, bytes: [0x4f, 0x67, 0x67, 0x53] },
  { format: 'age', offset: 0, bytes: [0x61, 0x67, 0x65, 0x2d, 0x65, 0x6e, 0x63] },
];

/** How many leading bytes {@link detectCompressedFormat} needs to see. */
export const MAGIC_SNIFF_BYTES = 16;

/**
 * The compressed or encrypted format an object starts with, or undefined.
 * @param head the first bytes of the object (at least {@link MAGIC_SNIFF_BYTES} when available)
 */
export function detectCompressedFormat(head: Uint8Array): string | undefined {
  for (const magic of COMPRESSED_MAGICS) {
    if (head.length < magic.offset + magic.bytes.length) continue;
    let match = true;
    for (let k = 0; k < magic.bytes.length; k++) {
      if (head[magic.offset + k] !== magic.bytes[k]) {
        match = false;
        break;
      }
    }
    if (match) return magic.format;
  }
  return undefined;
}

/**
 * Above this Shannon entropy (bits per byte, 8 is the maximum) a sample is
 * treated as incompressible. Text, logs and JSON sit at 4–6 bits, binaries
 * at 5–7; zstd output, gzip output and ciphertext sit above 7.9. A 4 KiB
 * sample of uniformly random bytes measures about 7.95 (the estimate is biased
 * low on small samples), so 7.5 leaves a wide margin on both sides.
 */
export const INCOMPRESSIBLE_ENTROPY_BITS = 7.5;

/** Bytes examined per chunk: four 1 KiB slices spread over the chunk. */
const SAMPLE_SLICES = 4;
const SAMPLE_SLICE_BYTES = 1024;

/** Shannon entropy, in bits per byte, of a sample spread across `data`. */
export function sampleEntropyBits(data: Uint8Array): number {
  const counts = new Uint32Array(256);
  let total = 0;
  if (data.length <= SAMPLE_SLICES * SAMPLE_SLICE_BYTES) {
    for (let i = 0; i < data.length; i++) counts[data[i]!]!++;
    total = data.length;
  } else {
    const stride = Math.floor((data.length - SAMPLE_SLICE_BYTES) / (SAMPLE_SLICES - 1));
    for (let s = 0; s < SAMPLE_SLICES; s++) {
      const from = s * stride;
      for (let i = from; i < from + SAMPLE_SLICE_BYTES; i++) counts[data[i]!]!++;
    }
    total = SAMPLE_SLICES * SAMPLE_SLICE_BYTES;
  }
  if (total === 0) return 0;
  let bits = 0;
  for (let b = 0; b < 256; b++) {
    const c = counts[b]!;
    if (c === 0) continue;
    const p = c / total;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** True when a chunk looks like random, encrypted or already-compressed data. */
export function looksIncompressible(chunk: Uint8Array): boolean {
  return sampleEntropyBits(chunk) > INCOMPRESSIBLE_ENTROPY_BITS;
}
