/**
 * Group commit for the ledger. Concurrent `append` calls are queued and
 * written in batches, one transaction per batch, so 10,000 concurrent appends
 * cost a handful of transactions instead of 10,000. A caller's promise
 * resolves only after its batch has committed: an acknowledged event is durable.
 */
import { EventEmitter } from 'node:events';
import type { LedgerRepository } from '../store/repositories/ledger.ts';
import { type LedgerEvent, type LedgerEventInput, rowToEvent } from './event.ts';

interface Pending {
  input: LedgerEventInput;
  resolve: (e: LedgerEvent) => void;
  reject: (err: unknown) => void;
}

export const MAX_BATCH = 2000;

export class LedgerAppender {
  readonly #repo: LedgerRepository;
  readonly #queue: Pending[] = [];
  #flushing: Promise<void> | undefined;
  /** Emits 'appended' with the committed events (for SSE streams and metrics). */
  readonly events = new EventEmitter();

  constructor(repo: LedgerRepository) {
    this.#repo = repo;
    this.events.setMaxListeners(0);
  }

  append(input: LedgerEventInput): Promise<LedgerEvent> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ input, resolve, reject });
      this.#flushing ??= this.#drain();
    });
  }

  /** Appends several events in one batch, in order. */
  appendMany(inputs: readonly LedgerEventInput[]): Promise<LedgerEvent[]> {
    return Promise.all(inputs.map((i) => this.append(i)));
  }

  async #drain(): Promise<void> {
    // Yield once so that appends issued in the same tick join the first batch.
    await new Promise<void>((r) => setImmediate(r));
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        try {
          const rows = await this.#repo.appendBatch(batch.map((p) => p.input));
          const events = rows.map(rowToEvent);
          batch.forEach((p, i) => p.resolve(events[i]!));
          this.events.emit('appended', events);
        } catch (err) {
          for (const p of batch) p.reject(err);
          this.events.emit('append_failed', err);
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /** Resolves when everything queued so far is committed (shutdown). */
  async drained(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }
}
