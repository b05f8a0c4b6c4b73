import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ClientIdentity } from '../../../src/attr/service/client-identity.ts';
import { startServiceProcess } from '../../../src/attr/smoke/service-process.ts';
import { EXAMPLE_CORPUS, runBin } from '../service/run-bin.ts';

test('X-Forwarded-For is ignored unless the peer is a trusted proxy', () => {
  const none = new ClientIdentity([]);
  assert.equal(none.resolve('10.0.0.5', '203.0.113.9'), '10.0.0.5');
  const id = new ClientIdentity(['10.0.0.0/8', '::1', '192.0.2.1']);
  assert.equal(id.resolve('198.51.100.7', '203.0.113.9'), '198.51.100.7', 'untrusted peer: header ignored');
  assert.equal(id.resolve('10.0.0.5', '203.0.113.9'), '203.0.113.9');
  assert.equal(id.resolve('::ffff:10.0.0.5', '203.0.113.9'), '203.0.113.9', 'IPv4-mapped peer');
  assert.equal(id.resolve('10.0.0.5', '6.6.6.6, 203.0.113.9, 10.1.1.1'), '203.0.113.9', 'rightmost untrusted hop; a spoofed left part is ignored');
  assert.equal(id.resolve('10.0.0.5', ['6.6.6.6', '203.0.113.9']), '203.0.113.9', 'repeated headers are one list');
  assert.equal(id.resolve('10.0.0.5', 'not-an-ip'), '10.0.0.5', 'a malformed hop is attributed to the proxy');
  assert.equal(id.resolve('10.0.0.5', undefined), '10.0.0.5');
  assert.throws(() => new ClientIdentity(['10.0.0.0/33']), /invalid trusted proxy/);
});

test('config validation names a malformed trusted proxy entry', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, configure: (d) => void (d.rate_limit.trusted_proxies = ['127.0.0.1']) });
  try {
    const { readFileSync, writeFileSync } = await import('node:fs');
    const doc = JSON.parse(readFileSync(svc.configPath, 'utf8'));
    doc.rate_limit.trusted_proxies = ['127.0.0.1', 'proxy.local'];
    const bad = `${svc.configPath}.bad.json`;
    writeFileSync(bad, JSON.stringify(doc));
    const result = await runBin('attr-service-config', ['validate', '--config', bad]);
    assert.equal(result.code, 1);
    assert.match(JSON.stringify(result.json), /\/rate_limit\/trusted_proxies\/1/);
  } finally {
    await svc.stop();
  }
});

test('behind a trusted proxy, 120 unauthenticated requests do not lock out the token holder, and clients are told apart by X-Forwarded-For', async () => {
  const svc = await startServiceProcess({
    corpusPath: EXAMPLE_CORPUS,
    configure: (d) => void (d.rate_limit = { window_ms: 60_000, max_requests: 120, trusted_proxies: ['127.0.0.1', '::1'] }),
  });
  try {
    const flood = await Promise.all(
      Array.from({ length: 130 }, () => svc.request('/v1/metrics', { headers: { 'x-forwarded-for': '203.0.113.50' } }).then(async (r) => (await r.arrayBuffer(), r.status))),
    );
    assert.equal(flood.filter((s) => s === 401).length, 120);
    assert.equal(flood.filter((s) => s === 429).length, 10, 'the unauthenticated bucket of that client is full');
    const holder = await svc.request('/v1/metrics', { auth: true, headers: { 'x-forwarded-for': '203.0.113.50' } });
    assert.equal(holder.status, 200, 'the token holder behind the same address has its own bucket');
    const other = await svc.request('/v1/metrics', { headers: { 'x-forwarded-for': '198.51.100.1' } });
    assert.equal(other.status, 401, 'another client behind the proxy is not limited by the first one');
  } finally {
    await svc.stop();
  }
});

test('without trusted proxies, X-Forwarded-For cannot buy a fresh bucket', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, configure: (d) => void (d.rate_limit = { window_ms: 60_000, max_requests: 5 }) });
  try {
    const statuses: number[] = [];
    for (let i = 0; i < 8; i++) {
      const r = await svc.request('/v1/metrics', { headers: { 'x-forwarded-for': `203.0.113.${i}` } });
      await r.arrayBuffer();
      statuses.push(r.status);
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429, 429]);
  } finally {
    await svc.stop();
  }
});
