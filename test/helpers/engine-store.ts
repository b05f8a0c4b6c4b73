/**
 * A migrated svc store on a fresh engine target (its own state dir and, on
 * PostgreSQL, its own schema): the set-up the storage contract suites share.
 * `close` closes the store and removes the state dir and schema.
 */
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
