/**
 * A migrated store on a fresh state dir (and, for PostgreSQL, a fresh schema)
 * for the enclosing `describe`: opened in `before`, closed and dropped in
 * `after`. Read `fixture.store` / `fixture.target` inside tests.
 */
import { after, before } from 'node:test';
import { type Store, openStore } from '../../src/svc/store/store.ts';
import { type EngineName, type EngineTarget, engineTarget } from './engines.ts';

export interface StoreFixture {
  readonly store: Store;
  readonly target: EngineTarget;
}

export function useStore(engine: EngineName): StoreFixture {
  let target: EngineTarget | undefined;
  let store: Store | undefined;
  before(async () => {
    target = await engineTarget(engine);
    store = await openStore(target);
  });
  after(async () => {
    await store?.close();
    await target?.cleanup();
  });
  return {
    get store() {
      if (!store) throw new Error('store fixture used outside its describe block');
      return store;
    },
    get target() {
      if (!target) throw new Error('store fixture used outside its describe block');
      return target;
    },
  };
}
