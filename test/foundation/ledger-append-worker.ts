// Child process for the two-process ledger test: appends N events to the
// PostgreSQL schema given in argv, concurrently, then exits.
import { LedgerAppender } from '../../src/svc/ledger/appender.ts';
import { openStore } from '../../src/svc/store/store.ts';

const [url, schema, count, label] = process.argv.slice(2);
const store = await openStore({ databaseUrl: url, stateDir: '/tmp', pgSchema: schema });
const appender = new LedgerAppender(store.ledger);
const n = Number(count);
// Many small waves so the two processes interleave batches.
for (let wave = 0; wave < 20; wave++) {
  await Promise.all(Array.from({ length: n / 20 }, (_, i) => appender.append({ type: 'proc.append', actor: label!, tenant: 'p', payload: { wave, i } })));
}
await store.close();
