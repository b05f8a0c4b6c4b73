import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rename, unlink, writeFile } from 'node:fs/promises';
import { startServiceProcess } from '../../../src/attr/smoke/service-process.ts';
import { EXAMPLE_CORPUS, publishedValidator, runBin } from '../service/run-bin.ts';

const reportErrors = publishedValidator('audit/schemas/attr-audit-verification-report.v1.schema.json');
const body = { prompt: 'How far do honeybees forage?', gross_revenue: '1.00' };

for (const [what, tamper] of [
  ['removed', (p: string) => unlink(p)],
  ['replaced (logrotate copy-and-create)', async (p: string) => { await rename(p, `${p}.old`); await writeFile(p, ''); }],
  ['truncated', (p: string) => writeFile(p, '')],
] as const) {
  test(`a live audit log that is ${what} turns the service not-ready and no attribution is acknowledged`, async () => {
    const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS });
    try {
      assert.equal((await svc.request('/v1/attribute', { auth: true, json: body })).status, 200);
      await tamper(svc.auditLogPath);
      const refused = await svc.request('/v1/attribute', { auth: true, json: body });
      assert.ok(refused.status === 500 || refused.status === 503, String(refused.status));
      assert.match(((await refused.json()) as { error: { code: string } }).error.code, /^(audit_unavailable|not_ready)$/);
      const ready = await svc.request('/readyz');
      assert.equal(ready.status, 503);
      const check = ((await ready.json()) as { checks: Array<{ name: string; status: string; detail: string }> }).checks.find((c) => c.name === 'audit_log')!;
      assert.equal(check.status, 'failed');
      assert.match(check.detail, /removed|replaced|size changed/);
      assert.equal((await svc.request('/v1/attribute', { auth: true, json: body })).status, 503, 'stays refusing');
    } finally {
      await svc.stop();
    }
  });
}

test('rotation by the documented procedure (attr-service-audit-rotate → SIGHUP) twice while serving: one chain, every checkpoint verifies', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS });
  try {
    const attribute = (n: number) => Promise.all(Array.from({ length: n }, () => svc.request('/v1/attribute', { auth: true, json: body }).then((r) => r.status)));
    const checkpoints: string[] = [];
    for (let round = 0; round < 2; round++) {
      const during = attribute(20);
      const rotated = await runBin('attr-service-audit-rotate', ['--config', svc.configPath]);
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.equal(rotated.json.segment, round + 1);
      checkpoints.push(rotated.json.expect_head);
      assert.ok((await during).every((s) => s === 200));
    }
    assert.ok((await attribute(5)).every((s) => s === 200));
    const metrics = (await (await svc.request('/v1/metrics', { auth: true })).json()) as { audit_head: { seq: number; hash: string; segment: number } };
    assert.equal(metrics.audit_head.seq, 20 + 20 + 5, 'every attribution logged');
    assert.equal(metrics.audit_head.segment, 3);
    assert.equal((await svc.request('/readyz')).status, 200);
    const head = `${metrics.audit_head.seq}:${metrics.audit_head.hash}`;
    for (const expect of [...checkpoints, head]) {
      const verified = await runBin('attr-service-audit-verify', ['--config', svc.configPath, '--expect-head', expect]);
      assert.equal(verified.code, 0, verified.stdout);
      assert.deepEqual(reportErrors(verified.json), []);
      assert.equal(verified.json.segments.length, 3);
      assert.equal(verified.json.expected_head.found, true);
    }
  } finally {
    await svc.stop();
  }
});

test('attr-service-audit-verify --expect-head fails on a shorter log; rotate works offline too', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS });
  let head: string;
  const { configPath, auditLogPath } = svc;
  try {
    for (let i = 0; i < 3; i++) assert.equal((await svc.request('/v1/attribute', { auth: true, json: body })).status, 200);
    const metrics = (await (await svc.request('/v1/metrics', { auth: true })).json()) as { audit_head: { seq: number; hash: string } };
    head = `${metrics.audit_head.seq}:${metrics.audit_head.hash}`;
    // Stop the service but keep its files: SIGTERM only.
    svc.child.kill('SIGTERM');
    await new Promise((r) => svc.child.once('exit', r));
    const offline = await runBin('attr-service-audit-rotate', ['--config', configPath]);
    assert.equal(offline.code, 0, offline.stderr);
    assert.equal(offline.json.expect_head, head, 'offline rotation closes the segment at the same head');
    const lines = (await readFile(`${auditLogPath}.000001`, 'utf8')).trimEnd().split('\n');
    await writeFile(`${auditLogPath}.000001`, `${lines.slice(0, -1).join('\n')}\n`);
    const plain = await runBin('attr-service-audit-verify', ['--config', configPath]);
    assert.equal(plain.code, 0, 'without a checkpoint the cut is invisible');
    const checked = await runBin('attr-service-audit-verify', ['--config', configPath, '--expect-head', head]);
    assert.equal(checked.code, 1);
    assert.equal(checked.json.first_bad_entry.kind, 'expected_head_missing');
    const usage = await runBin('attr-service-audit-verify', ['--config', configPath, '--expect-head', 'nope']);
    assert.equal(usage.code, 2);
  } finally {
    await svc.stop();
  }
});
