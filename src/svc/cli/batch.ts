/**
 * Several files (or manifests) in one CLI process (decision 173):
 * `svc execute --file a --file b …` and `svc manifest rehydrate id1 id2 …
 * --out-dir d`. One process start-up instead of one per file (~150 ms each
 * on the reference machines, more than a 24 MiB transfer), and `--jobs`
 * transfers at once over keep-alive connections so the server's ingest of one
 * file overlaps the next file's hashing and sending.
 *
 * Every item is attempted even when an earlier one failed — nothing that
 * could be stored is skipped because a neighbour was refused — and the
 * results come back in the order the items were given.
 */
import { ApiError } from './client.ts';
import { isUnreachable, UNREACHABLE } from './runtime.ts';

/** Default transfers at once: two keeps both cores of a small machine busy without queueing behind each other. */
export const DEFAULT_JOBS = 2;
export const MAX_JOBS = 16;

export type BatchOutcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** Runs `work` over `items` with at most `jobs` at once; outcomes in input order. */
export async function runBatch<I, T>(items: readonly I[], jobs: number, work: (item: I, index: number) => Promise<T>): Promise<BatchOutcome<T>[]> {
  const outcomes: BatchOutcome<T>[] = new Array(items.length);
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const index = next++;
      try {
        outcomes[index] = { ok: true, value: await work(items[index]!, index) };
      } catch (error) {
        outcomes[index] = { ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(jobs, items.length) }, lane));
  return outcomes;
}

/** `--jobs` as a whole number in 1..MAX_JOBS. @throws Error (a usage error) otherwise. */
export function parseJobs(value: string | undefined): number {
  if (value === undefined) return DEFAULT_JOBS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_JOBS) throw new Error(`--jobs must be a whole number from 1 to ${MAX_JOBS}`);
  return n;
}

/** The printed form of one failed item: the server's error body, or the local error's message. */
export function batchError(error: unknown): unknown {
  if (error instanceof ApiError) return error.body;
  if (isUnreachable(error)) return { error: { code: 'unreachable', message: UNREACHABLE } };
  return { error: { code: 'local_error', message: (error as { message?: string })?.message ?? String(error) } };
}

/** True when any item failed (the command then exits 1, after every item was attempted). */
export function anyFailed(outcomes: readonly { error?: unknown }[]): boolean {
  return outcomes.some((o) => o.error !== undefined);
}
