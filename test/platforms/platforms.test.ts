/**
 * Platform routes through the real HTTP server and `svc platform` through the
 * real CLI: targets and the one in use, readiness per target failing closed,
 * the capability matrix, and offline validation of the embedded, PostgreSQL,
 * S3 (s3rver) and cluster targets with non-zero exits naming the reasons.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { S3RVER_IGNORES_CONDITIONAL_PUT, type S3TestServer, startS3TestServer } from '../chunk-store/s3-test-server.ts';
import { runSvc } from '../helpers/cli.ts';
import { PG_URL, engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

type Json = any;

for (const engine of engines()) {
  describe(`platform routes (${engine.name})`, { skip: engine.skip }, () => {
    let s: TestServer;
    const expected = engine.name === 'sqlite' ? 'embedded' : 'postgresql';
    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => s?.close());

    test('GET /v1/platforms lists the five targets and marks the one in use', async () => {
      const r = await s.call('GET', '/v1/platforms');
      assert.equal(r.status, 200);
      const body = (await r.json()) as Json;
      assert.deepEqual(body.targets.map((t: Json) => t.id), ['embedded', 'postgresql', 's3', 'cluster', 'container']);
      assert.equal(body.in_use, expected);
      assert.deepEqual(body.targets.filter((t: Json) => t.in_use).map((t: Json) => t.id), [expected]);
      assert.equal((await s.call('GET', '/v1/platforms', { key: KEYS.acmeWriter })).status, 403);
    });

    test('GET /v1/platforms/matrix gives every capability a cell per target and the tests that prove it', async () => {
      const body = (await (await s.call('GET', '/v1/platforms/matrix')).json()) as Json;
      assert.ok(body.capabilities.length >= 8);
      for (const c of body.capabilities) {
        assert.deepEqual(Object.keys(c.cells).sort(), [...body.targets].sort(), c.id);
        assert.ok(c.proven_by.length > 0, c.id);
      }
      assert.equal(body.capabilities.find((c: Json) => c.id === 'several_processes').cells.embedded.support, 'unsupported');
    });

    test('readiness probes the target in use for real; other targets fail with the keys they need', async () => {
      const r = await s.call('GET', '/v1/platforms/readiness');
      const body = (await r.json()) as Json;
      assert.equal(r.status, 200, JSON.stringify(body));
      assert.equal(body.ready, true);
      const current = body.targets.find((t: Json) => t.in_use);
      assert.equal(current.target, expected);
      assert.ok(current.checks.some((c: Json) => c.name === 'filesystem.fsync_link_durability' && c.ok));
      if (engine.name === 'postgres') {
        assert.match(current.checks.find((c: Json) => c.name === 'postgres.migrations').detail, /all \d+ migrations applied/);
        assert.ok(current.checks.find((c: Json) => c.name === 'postgres.advisory_locks').ok);
      }
      const s3 = body.targets.find((t: Json) => t.target === 's3');
      assert.equal(s3.ready, false);
      assert.match(s3.checks[0].detail, /SVC_S3_BUCKET/);
    });

    test('readiness fails closed (503 with the reason) when the chunk volume stops being usable', async () => {
      const dir = path.join(s.target.stateDir, 'chunks');
      const saved = `${dir}.saved`;
      const { renameSync } = await import('node:fs');
      renameSync(dir, saved);
      writeFileSync(dir, 'not a directory');
      try {
        const r = await s.call('GET', '/v1/platforms/readiness');
        assert.equal(r.status, 503);
        const body = (await r.json()) as Json;
        assert.equal(body.ready, false);
        const failed = body.targets.find((t: Json) => t.in_use).checks.find((c: Json) => !c.ok);
        assert.equal(failed.name, 'filesystem.directory');
        assert.match(failed.detail, /EEXIST|ENOTDIR|not a directory/);
      } finally {
        rmSync(dir);
        renameSync(saved, dir);
      }
    });
  });
}

describe('svc platform (offline CLI)', () => {
  let stateDir: string;
  let s3: S3TestServer;
  before(async () => {
    stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-platform-'));
    s3 = await startS3TestServer('platform-probe');
  });
  after(async () => {
    await s3?.close();
    rmSync(stateDir, { recursive: true, force: true });
  });
  const base = (): Record<string, string> => ({ SVC_STATE_DIR: stateDir });

  test('platform matrix prints the matrix without a server', async () => {
    const r = await runSvc(['--json', 'platform', 'matrix'], base());
    assert.equal(r.status, 0, r.stderr);
    const body = JSON.parse(r.stdout);
    assert.equal(body.in_use, 'embedded');
    assert.ok(body.capabilities.some((c: Json) => c.id === 'exact_bytes'));
  });

  test('validate --target embedded passes on a local volume (fsync + link, SQLite WAL)', async () => {
    const r = await runSvc(['--json', 'platform', 'validate', '--target', 'embedded'], base());
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const body = JSON.parse(r.stdout);
    assert.equal(body.ok, true);
    assert.deepEqual(body.checks.map((c: Json) => c.name), ['filesystem.directory', 'filesystem.fsync_link_durability', 'sqlite.database', 'filesystem.directory', 'filesystem.fsync_link_durability']);
  });

  test('validate --target embedded exits 3 naming the check when the chunk directory cannot be created', async () => {
    const blocker = path.join(stateDir, 'blocker');
    writeFileSync(blocker, 'x');
    const r = await runSvc(['platform', 'validate', '--target', 'embedded'], { ...base(), SVC_CHUNK_DIR: path.join(blocker, 'chunks') });
    assert.equal(r.status, 3);
    assert.match(r.stderr, /embedded: filesystem\.directory failed: .*(ENOTDIR|EEXIST)/);
  });

  test('validate --target postgresql exits 3 with the reason when the server cannot be reached or is not configured', async () => {
    const unreachable = await runSvc(['platform', 'validate', '--target', 'postgresql'], { ...base(), SVC_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    assert.equal(unreachable.status, 3);
    assert.match(unreachable.stderr, /postgres\.connect failed: .*ECONNREFUSED/);
    const unset = await runSvc(['platform', 'validate', '--target', 'postgresql'], base());
    assert.equal(unset.status, 3);
    assert.match(unset.stderr, /SVC_DATABASE_URL/);
  });

  test('validate --target postgresql passes on a real server: version, migrations, advisory locks', { skip: PG_URL ? false : 'PostgreSQL tests skipped: SVC_TEST_DATABASE_URL is not set' }, async () => {
    const r = await runSvc(['--json', 'platform', 'validate', '--target', 'postgresql'], { ...base(), SVC_DATABASE_URL: PG_URL! });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const checks = JSON.parse(r.stdout).checks as Json[];
    assert.match(checks.find((c) => c.name === 'postgres.version').detail, /^PostgreSQL \d+/);
    assert.match(checks.find((c) => c.name === 'postgres.migrations').detail, /migrations applied|pending/);
    assert.equal(checks.find((c) => c.name === 'postgres.advisory_locks').ok, true);
  });

  test('validate --target s3 passes the round trip on s3rver and reports that it ignores conditional create (advisory for one process)', async () => {
    const r = await runSvc(['--json', 'platform', 'validate', '--target', 's3'], { ...base(), ...s3.svcEnv('probe') });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    const checks = JSON.parse(r.stdout).checks as Json[];
    assert.deepEqual(checks.map((c) => [c.name, c.ok]), [['s3.bucket_reachable', true], ['s3.write_read_delete', true], ['s3.conditional_create', false]]);
    assert.equal(checks[2].required, false, S3RVER_IGNORES_CONDITIONAL_PUT);
    assert.deepEqual(await s3.listKeys('probe/'), [], 'the probe objects are deleted');
  });

  test('validate --target cluster requires conditional create, so s3rver fails it with the reason', async () => {
    const r = await runSvc(['platform', 'validate', '--target', 'cluster'], { ...base(), ...s3.svcEnv('probe'), ...(PG_URL ? { SVC_DATABASE_URL: PG_URL } : {}) });
    assert.equal(r.status, 3);
    assert.match(r.stderr, /cluster: s3\.conditional_create failed: If-None-Match/);
  });

  test('validate --target s3 exits 3 when the bucket does not exist, and rejects an unknown target with exit 2', async () => {
    const r = await runSvc(['platform', 'validate', '--target', 's3'], { ...base(), ...s3.svcEnv('probe'), SVC_S3_BUCKET: 'no-such-bucket' });
    assert.equal(r.status, 3);
    assert.match(r.stderr, /s3\.bucket_reachable failed: bucket no-such-bucket is not reachable/);
    const unknown = await runSvc(['platform', 'validate', '--target', 'mainframe'], base());
    assert.equal(unknown.status, 2);
    assert.match(unknown.stderr, /unknown target 'mainframe'/);
  });
});
