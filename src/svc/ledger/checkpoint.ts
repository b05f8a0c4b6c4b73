/**
 * Ledger checkpoints: `<seq>:<hash>` of an event seen earlier (the `checked`
 * and `headHash` of a past `svc ledger verify`). A chain that verifies can
 * still have been cut short — dropping the newest events leaves a valid
 * prefix — so only a checkpoint kept elsewhere proves nothing was removed:
 * the chain must still hold that event with that hash.
 */
import { SvcError } from '../errors.ts';

export interface LedgerCheckpoint {
  seq: number;
  hash: string;
}

export interface CheckpointResult {
  seq: number;
  hash: string;
  /** `found`: the event is there with that hash; `missing`: the chain ends before it; `mismatch`: another hash. */
  outcome: 'found' | 'missing' | 'mismatch';
  found_hash: string | null;
}

const CHECKPOINT = /^([1-9][0-9]{0,15}):([0-9a-f]{64})$/;

export function parseCheckpoint(text: string): LedgerCheckpoint {
  const m = CHECKPOINT.exec(text.trim());
  if (!m) throw new SvcError('invalid_request', '--expect-head must be <seq>:<64 lowercase hex digits>, e.g. the `checked` and `headHash` of an earlier verify', { details: { param: 'expect_head' } });
  return { seq: Number(m[1]), hash: m[2]! };
}

/** Compares the checkpoint with the event the chain holds at its position (undefined: none). */
export function checkCheckpoint(checkpoint: LedgerCheckpoint, event: { seq: number | string; hash: string } | undefined): CheckpointResult {
  if (!event || Number(event.seq) !== checkpoint.seq) return { ...checkpoint, outcome: 'missing', found_hash: null };
  return { ...checkpoint, outcome: event.hash === checkpoint.hash ? 'found' : 'mismatch', found_hash: event.hash };
}
