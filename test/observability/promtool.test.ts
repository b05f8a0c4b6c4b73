/**
 * `/metrics` from the real server passes `promtool check metrics` (Prometheus's
 * own linter). promtool comes from the Debian `prometheus` package; without it
 * the test skips with a message, except in CI (`SVC_CI=1`), where it fails.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { type TestServer, startTestServer } from '../helpers/server.ts';

const PROMTOOL = process.env.SVC_PROMTOOL ?? 'promtool';
const available = spawnSync(PROMTOOL, ['--version'], { stdio: 'ignore' }).status === 0;
const inCi = process.env.SVC_CI === '1';
const skip = !available && !inCi ? `promtool not found (install the Debian package "prometheus" or set SVC_PROMTOOL); SVC_CI=1 makes this a failure` : false;

function promtoolCheck(text: string): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(PROMTOOL, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, output }));
    child.stdin.end(text);
  });
}

let s: TestServer;
before(async () => {
  if (!skip) s = await startTestServer();
});
after(async () => s?.close());

test('promtool check metrics finds no problem in /metrics', { skip }, async () => {
  assert.ok(available, `promtool (${PROMTOOL}) is required when SVC_CI=1`);
  // Some traffic first, so labelled series exist and are linted too.
  await s.call('POST', '/v1/work-units', { body: { kind: 'byte_object', tenant: 'acme', logical_ref: 's3://b/k', payload: { _svc_encoding: 'base64', data: 'YWJj' } } });
  const res = await s.call('GET', '/metrics');
  assert.equal(res.status, 200);
  const text = await res.text();
  assert.match(text, /svc_work_units_total\{kind="byte_object"\} 1/);
  const { status, output } = await promtoolCheck(text);
  assert.equal(output.trim(), '', `promtool reported problems:\n${output}`);
  assert.equal(status, 0);
});
