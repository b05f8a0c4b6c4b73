/**
 * Child-process entry for the AI benchmarks: the load generator runs in its
 * own process so that building requests and reading answers does not
 * compete with the gateway under test for the same event loop. The parent
 * sends one job at a time over the IPC channel and gets the latencies back.
 */
import { type LoadJob, type LoadResult, makeRequester, runLoad } from '../../src/svc/benchmarks/http-load.ts';

const requesters = new Map<string, ReturnType<typeof makeRequester>>();

/** Request bodies are built here, from the job's description, so the parent never serialises them. */
function bodyFor(job: LoadJob, i: number): unknown {
  const content = job.body.unique ? `${job.body.prefix} ${job.body.offset + i}` : job.body.prefix;
  return { model: job.body.model, messages: [{ role: 'user', content }], max_tokens: 16 };
}

process.on('message', (job: LoadJob) => {
  let requester = requesters.get(job.target.name);
  if (!requester) {
    requester = makeRequester(job.target);
    requesters.set(job.target.name, requester);
  }
  const r = requester;
  runLoad(job.count, job.concurrency, (i) => r.post(job.path, bodyFor(job, i))).then(
    (result) => process.send?.({ ok: true, ...result } satisfies LoadResult),
    (err: unknown) => process.send?.({ ok: false, error: String(err), latencies: [], errors: job.count, seconds: 0, sent: 0 } satisfies LoadResult),
  );
});
process.on('disconnect', () => {
  for (const r of requesters.values()) r.close();
  process.exit(0);
});
