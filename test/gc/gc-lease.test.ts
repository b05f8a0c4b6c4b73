/**
 * The GC lease after a crash: a run killed mid-way (kill -9) leaves its lease
 * row behind. A process on the same host takes it over at once when the
 * holder's pid is gone, instead of refusing every run for 15 minutes; a live
 * holder (or one on another host, whose liveness cannot be checked) still
 * excludes a second run. Through the real server, SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { holderIsDead, processIdentity } from '../../src/svc/gc/gc-service.ts';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, type TestServer, startTestServer } from '../helpers/server.ts';

/** The pid of a process that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

test('holderIsDead: only a holder of this host and pid namespace whose pid is gone', { skip: processIdentity() === undefined ? 'no /proc/self/ns/pid here' : false }, () => {
  const self = processIdentity()!;
  const [host, ns] = self.split('/');
  assert.equal(holderIsDead(`gc_1@${host}/${ns}/${deadPid()}`), true);
  assert.equal(holderIsDead(`gc_1@${host}/${ns}/${process.pid}`), false, 'this process');
  assert.equal(holderIsDead(`gc_1@${host}/${ns}/${process.ppid}`), false, 'a live process');
  assert.equal(holderIsDead(`gc_1@other-host/${ns}/${deadPid()}`), false, 'another host: wait for the expiry');
  assert.equal(holderIsDead(`gc_1@${host}/1/${deadPid()}`), false, 'another pid namespace (a container): wait for the expiry');
  assert.equal(holderIsDead('gc_1'), false, 'a holder that named no process');
});

for (const engine of engines()) {
  describe(`GC lease left by a killed run on ${engine.name}`, { skip: engine.skip || (processIdentity() === undefined ? 'no /proc/self/ns/pid here' : false) }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => s?.close());
    const gc = () => s.call('POST', '/v1/admin/gc', { key: ADMIN_KEY, body: { dry_run: false } });
    const plant = async (holder: string) => {
      const now = new Date();
      assert.equal(await s.app.store.leases.takeLease('gc', holder, now.toISOString(), new Date(now.getTime() + 15 * 60_000).toISOString()), true);
    };

    test('a lease whose holder died on this host is taken over: the next run completes', async () => {
      const [host, ns] = processIdentity()!.split('/');
      await plant(`gc_dead@${host}/${ns}/${deadPid()}`);
      const r = await gc();
      assert.equal(r.status, 200, await r.clone().text());
      assert.equal(((await r.json()) as { result: { dry_run: boolean } }).result.dry_run, false);
      assert.equal(await s.app.store.leases.getLease('gc'), undefined, 'released at the end of the run');
    });

    test('a lease held by a live process, or by a process of another host, still refuses a second run (conflict, naming the holder)', async () => {
      const [host, ns] = processIdentity()!.split('/');
      for (const holder of [`gc_live@${host}/${ns}/${process.ppid}`, `gc_far@elsewhere/${ns}/${deadPid()}`]) {
        await plant(holder);
        const r = await gc();
        assert.equal(r.status, 409, holder);
        const body = (await r.json()) as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'conflict');
        assert.match(body.error.message, new RegExp(holder.replace(/[.]/g, '\\.')));
        await s.app.store.leases.releaseLease('gc', holder);
      }
      const dry = await gc();
      assert.equal(dry.status, 200);
      await dry.arrayBuffer();
    });
  });
}
