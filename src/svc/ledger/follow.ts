/**
 * Follows the ledger: yields the events after a sequence number that match a
 * stream filter, in chain order, then waits for more. It wakes on every batch
 * this process commits (`LedgerService.subscribe`) and polls as well, so
 * events appended by other processes on the same database arrive too. Ends
 * when `signal` aborts. The REST SSE route and the gRPC stream both use it.
 */
import type { LedgerEvent } from './event.ts';
import type { LedgerService, StreamFilter } from './service.ts';

/** How often the ledger is re-read when no append was announced in this process. */
export const LEDGER_POLL_MS = 1000;

export async function* followLedger(ledger: LedgerService, filter: StreamFilter, afterSeq: number, signal: AbortSignal, pollMs = LEDGER_POLL_MS): AsyncGenerator<LedgerEvent> {
  let cursor = afterSeq;
  let appended = false;
  let wake: (() => void) | undefined;
  const unsubscribe = ledger.subscribe(() => {
    appended = true;
    wake?.();
  });
  try {
    while (!signal.aborted) {
      appended = false;
      const page = await ledger.since(filter, cursor);
      for (const event of page.events) {
        if (signal.aborted) return;
        yield event;
      }
      if (page.lastSeq !== cursor) {
        cursor = page.lastSeq;
        continue;
      }
      // Caught up. An append announced while reading is read at once; otherwise sleep until one is, or the poll interval.
      if (appended) continue;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', done);
          wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, pollMs);
        signal.addEventListener('abort', done, { once: true });
        wake = done;
      });
    }
  } finally {
    unsubscribe();
  }
}
