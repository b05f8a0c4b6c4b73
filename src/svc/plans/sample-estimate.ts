/**
 * A cheap estimate of how much zstd would save on an object: compress up to
 * three 64 KiB samples (start, middle, end) and extrapolate. Costs well under
 * a millisecond for any object size, which is what planning can afford.
 */
import { zstdCompressSync, constants } from 'node:zlib';

const SAMPLE = 64 * 1024;

export function estimateCompressionSaving(bytes: Uint8Array): { reduction: number; sampleBytes: number } {
  if (bytes.byteLength === 0) return { reduction: 0, sampleBytes: 0 };
  const offsets = bytes.byteLength <= 3 * SAMPLE ? [0] : [0, Math.floor(bytes.byteLength / 2) - SAMPLE / 2, bytes.byteLength - SAMPLE];
  let raw = 0;
  let packed = 0;
  for (const off of offsets) {
    const slice = bytes.subarray(off, Math.min(bytes.byteLength, off + (offsets.length === 1 ? bytes.byteLength : SAMPLE)));
    raw += slice.byteLength;
    packed += Math.min(slice.byteLength, zstdCompressSync(slice, { params: { [constants.ZSTD_c_compressionLevel]: 3 } }).byteLength);
  }
  return { reduction: Math.max(0, Math.round((1 - packed / raw) * 1000) / 1000), sampleBytes: raw };
}
