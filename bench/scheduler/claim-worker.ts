/**
 * One "svc process" of the scheduler bench's claim test: a SchedulerService on
 * its own PostgreSQL pool, ticking until no due job is left; prints the ids it
 * started as one JSON line. Args: <database url> <schema> <label>.
 */
import { openDb } from '../../src/svc/store/open-db.ts';
import { SchedulerJobRepository } from '../../src/svc/store/repositories/scheduler-jobs.ts';
import { SchedulerService } from '../../src/svc/scheduler/scheduler-service.ts';

const [url, schema, label] = process.argv.slice(2);
const db = openDb({ databaseUrl: url, stateDir: '/tmp', pgSchema: schema });
const noAudit = { append: async () => undefined } as never;
const service = new SchedulerService({ repository: new SchedulerJobRepository(db), audit: noAudit, shiftingDisabled: () => false, owner: label });
const started: string[] = [];
for (let idle = 0; idle < 3; ) {
  const { started: batch } = await service.tick(200);
  for (const j of batch) started.push(j.id);
  idle = batch.length === 0 ? idle + 1 : 0;
}
process.stdout.write(`${JSON.stringify({ label, started })}\n`);
await db.close();
