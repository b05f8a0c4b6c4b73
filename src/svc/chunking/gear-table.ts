/**
 * The gear table of the FastCDC rolling hash: 256 pseudo-random 32-bit words,
 * one per byte value. Chunk boundaries are a pure function of the data and
 * this table, so the table is derived deterministically from a fixed seed —
 * every process, every release and every import of an export cuts the same
 * bytes at the same places, which is what makes chunk ids stable and dedupe
 * work across time.
 *
 * Derivation (documented in docs/chunking.md, do not change without bumping
 * {@link GEAR_TABLE_ID}): entry `i` is the first four bytes, big-endian, of
 * `SHA-256(GEAR_SEED || byte(i))`.
 */
import { createHash } from 'node:crypto';

/** The seed text. Changing it changes every boundary (and so every chunk id). */
export const GEAR_SEED = 'svc/fastcdc/gear/v1';

/** Recorded with each manifest so a reader knows which table cut its chunks. */
export const GEAR_TABLE_ID = 'sha256-seed-v1';

function deriveGearTable(seed: string): Int32Array {
  const table = new Int32Array(256);
  for (let i = 0; i < 256; i++) {
    const digest = createHash('sha256').update(seed, 'utf8').update(Uint8Array.of(i)).digest();
    // Int32 (not Uint32) so the hot loop stays in V8's small-integer fast path.
    table[i] = digest.readInt32BE(0);
  }
  return table;
}

/** The table used by the chunker. Frozen in spirit: treat as read-only. */
export const GEAR_TABLE: Int32Array = deriveGearTable(GEAR_SEED);
