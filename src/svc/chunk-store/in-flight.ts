/**
 * Tracks a store's in-flight operations so `close()` can wait for them and
 * refuse new ones (both S3 stores: chunk objects and pack objects).
 */
import { SvcError } from '../errors.ts';

export class InFlight {
  readonly #running = new Set<Promise<unknown>>();
  #closed = false;

  track<T>(operation: () => Promise<T>): Promise<T> {
    if (this.#closed) return Promise.reject(new SvcError('unavailable', 'chunk store is closed'));
    const running = operation();
    this.#running.add(running);
    const forget = () => this.#running.delete(running);
    running.then(forget, forget);
    return running;
  }

  /** Refuses new operations and waits for the running ones to settle. */
  async close(): Promise<void> {
    this.#closed = true;
    await Promise.allSettled([...this.#running]);
  }
}
