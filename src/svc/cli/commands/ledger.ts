/** `svc ledger query|verify`, `svc logs query`. */
import type { Command } from 'commander';
import { loadConfig } from '../../config/load.ts';
import { type CheckpointResult, checkCheckpoint, parseCheckpoint } from '../../ledger/checkpoint.ts';
import { EXIT, clientFor, run } from '../runtime.ts';

/** The verify report with the checkpoint's outcome; a checkpoint the chain no longer holds fails it. */
function withCheckpoint<R extends { ok: boolean }>(report: R, checkpoint: CheckpointResult): R & { expected_head: CheckpointResult } {
  return { ...report, ok: report.ok && checkpoint.outcome === 'found', expected_head: checkpoint };
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function register(program: Command): void {
  const ledger = program.command('ledger').description('the hash-chained audit ledger');
  ledger
    .command('query')
    .description('query ledger events')
    .option('--tenant <tenant>')
    .option('--event-type <type>', 'event type (repeatable)', collect)
    .option('--from <iso>', 'ISO 8601 start time')
    .option('--to <iso>', 'ISO 8601 end time')
    .option('--limit <n>', 'maximum events', (v) => Number(v))
    .action((o, cmd: Command) =>
      run(cmd, async (g) =>
        clientFor(g).json('POST', '/v1/ledger/query', { tenant: o.tenant, event_types: o.eventType, from: o.from, to: o.to, limit: o.limit }),
      ),
    );
  ledger
    .command('verify')
    .description('verify the whole chain; exits 3 and names the first broken event when it does not hold')
    .option('--offline', 'read the database named by the configuration directly instead of asking the server')
    .option('--expect-head <seq:hash>', 'checkpoint the chain must still hold (the `checked` and `headHash` of an earlier verify): a ledger cut short fails')
    .action((o, cmd: Command) =>
      run(
        cmd,
        async (g) => {
          const checkpoint = o.expectHead === undefined ? undefined : parseCheckpoint(o.expectHead);
          if (!o.offline) {
            const client = clientFor(g);
            const report = (await client.json('POST', '/v1/ledger/verify')) as { ok: boolean };
            if (!checkpoint) return report;
            const page = (await client.json('POST', '/v1/ledger/query', { after_seq: checkpoint.seq - 1, limit: 1 })) as { events: Array<{ seq: number; hash: string }> };
            return withCheckpoint(report, checkCheckpoint(checkpoint, page.events[0]));
          }
          const { config } = loadConfig();
          const { openStore } = await import('../../store/store.ts');
          const { verifyLedger } = await import('../../ledger/verify.ts');
          const target = { databaseUrl: config.storage.database_url, stateDir: config.state_dir };
          const store = await openStore(target);
          try {
            const report = await verifyLedger(store.ledger, { target });
            if (!checkpoint) return report;
            const [event] = await store.ledger.query({ afterSeq: checkpoint.seq - 1, limit: 1 });
            return withCheckpoint(report, checkCheckpoint(checkpoint, event));
          } finally {
            await store.close();
          }
        },
        (r) => ((r as { ok?: boolean }).ok ? EXIT.ok : EXIT.verification),
      ),
    );

  const logs = program.command('logs').description('operational logs (redacted; not the audit record)');
  logs
    .command('query')
    .description('query operational log entries')
    .option('--tenant <tenant>')
    .option('--event-type <type>', 'event type (repeatable)', collect)
    .option('--limit <n>', 'maximum entries (default 100, max 1000)', (v) => Number(v))
    .action((o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('POST', '/v1/logs/query', { tenant: o.tenant, event_types: o.eventType, limit: o.limit })));
}
