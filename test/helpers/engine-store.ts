/**
 * A migrated svc store on a fresh engine target (its own state dir and, on
 * PostgreSQL, its own schema): the set-up the storage contract suites share.
 * `close` closes the store and removes the state dir and schema.
 */
import { after, before } from 'node:test';
import { openStore, type Store } from '../../src/svc/store/store.ts';
import { type EngineName, engineTarget } from './engines.ts';

export interface EngineStore {
  store: Store;
  close(): Promise<void>;
}

export async function openEngineStore(name: EngineName): Promise<EngineStore> {
  const target = await engineTarget(name);
  try {
    const store = await openStore({ databaseUrl: target.databaseUrl, stateDir: target.stateDir, pgSchema: target.pgSchema });
    return {
      store,
      close: async () => {
        await store.close();
        await target.cleanup();
      },
    };
  } catch (err) {
    await target.cleanup();
    throw err;
  }
}

/**
 * Inside a `describe`: a store on `name` opened before its tests (in a
 * `before` hook registered first, so later hooks may use it) and closed after.
 */
export function engineStoreFixture(name: EngineName): { readonly store: Store } {
  let opened: EngineStore | undefined;
  before(async () => {
    opened = await openEngineStore(name);
  });
  after(async () => {
    await opened?.close();
  });
  return {
    get store(): Store {
      if (!opened) throw new Error('the engine store opens in a before() hook: use it inside tests or later hooks');
      return opened.store;
    },
  };
}
