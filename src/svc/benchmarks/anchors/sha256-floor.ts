/**
 * The hashing floor: MiB/s of SHA-256 over the same buffers an ingest
 * stores, in this process. svc hashes every byte it ingests at least once
 * (whole-object digest and chunk ids), so no ingest can be faster on this CPU.
 */
import { createHash } from 'node:crypto';

export function measureSha256MiBps(buffers: readonly Uint8Array[]): number {
  const bytes = buffers.reduce((s, b) => s + b.byteLength, 0);
  const t0 = performance.now();
  for (const b of buffers) createHash('sha256').update(b).digest();
  const seconds = Math.max((performance.now() - t0) / 1000, 1e-6);
  return bytes / 2 ** 20 / seconds;
}
