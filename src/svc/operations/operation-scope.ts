/**
 * The work unit a mutating call runs as, carried through its async work
 * (AsyncLocalStorage), so every ledger event the call writes names it
 * without threading an id through each domain service: the ledger appender
 * stamps `work_unit_id` on events that name none (design rule 1).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface OperationScope {
  readonly workUnitId: string;
  /** Set when a ledger event was stamped with the id (a failed call must then still record its unit). */
  stamped: boolean;
}

const storage = new AsyncLocalStorage<OperationScope>();

/** Runs `fn` as operation work unit `scope.workUnitId`. */
export function runAsOperation<T>(scope: OperationScope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

/** The operation scope of the current call, if it runs as one. */
export function currentOperation(): OperationScope | undefined {
  return storage.getStore();
}
