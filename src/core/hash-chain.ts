/**
 * A hash chain: each entry stores the previous entry's hash and its own hash,
 * computed as SHA-256 over `prev_hash + "\n" + canonical body`. Used by the svc
 * ledger and the attr audit log. Verification walks entries in order and
 * reports the first link that does not hold.
 */
import { hash } from 'node:crypto';

/** The prev_hash of the first entry of a chain. */
export const GENESIS_HASH = '0'.repeat(64);

export function chainHash(prevHash: string, canonicalBody: string): string {
  // One-shot crypto.hash: no Hash object per entry (verification runs this millions of times).
  return hash('sha256', `${prevHash}\n${canonicalBody}`, 'hex');
}

export interface ChainLink {
  /** Position used in reports (a sequence number or line number). */
  position: number;
  prevHash: string;
  hash: string;
  /** The canonical text the hash is computed over (without prev_hash). */
  canonicalBody: string;
}

export type ChainBreak =
  | { kind: 'prev_hash_mismatch'; position: number; expected: string; found: string }
  | { kind: 'entry_hash_mismatch'; position: number; expected: string; found: string }
  | { kind: 'sequence_gap'; position: number; expected: number; found: number };

export interface ChainReport {
  ok: boolean;
  checked: number;
  headHash: string;
  firstBreak?: ChainBreak;
}

/**
 * Incremental verifier: feed links in chain order; stops recording at the
 * first break (later links are still counted so the report says how far it got).
 */
export class ChainVerifier {
  #expectedPrev: string;
  #expectedPosition: number | undefined;
  #checked = 0;
  #firstBreak: ChainBreak | undefined;

  constructor(startPrevHash: string = GENESIS_HASH, startPosition?: number) {
    this.#expectedPrev = startPrevHash;
    this.#expectedPosition = startPosition;
  }

  push(link: ChainLink): boolean {
    this.#checked++;
    if (this.#firstBreak) return false;
    if (this.#expectedPosition !== undefined && link.position !== this.#expectedPosition) {
      this.#firstBreak = { kind: 'sequence_gap', position: link.position, expected: this.#expectedPosition, found: link.position };
      return false;
    }
    if (link.prevHash !== this.#expectedPrev) {
      this.#firstBreak = { kind: 'prev_hash_mismatch', position: link.position, expected: this.#expectedPrev, found: link.prevHash };
      return false;
    }
    const recomputed = chainHash(link.prevHash, link.canonicalBody);
    if (recomputed !== link.hash) {
      this.#firstBreak = { kind: 'entry_hash_mismatch', position: link.position, expected: recomputed, found: link.hash };
      return false;
    }
    this.#expectedPrev = link.hash;
    if (this.#expectedPosition !== undefined) this.#expectedPosition++;
    return true;
  }

  report(): ChainReport {
    const report: ChainReport = { ok: !this.#firstBreak, checked: this.#checked, headHash: this.#expectedPrev };
    if (this.#firstBreak) report.firstBreak = this.#firstBreak;
    return report;
  }
}
