import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync, mkdtempSync, rmSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServiceProcess } from '../../../src/attr/smoke/service-process.ts';
import { EXAMPLE_CORPUS, publishedValidator } from './run-bin.ts';

type Check = { name: string; status: string; detail: string };
const SPEC_CHECKS = [
  'service_config', 'auth_hash', 'engine_load', 'certification_report', 'discovery_manifest', 'provider_attribution_card',
  'production_readiness_report', 'production_invocation_admission', 'runtime_conformance_receipt', 'source_grounded_response_receipt',
];

async function readiness(svc: { request: (p: string) => Promise<Response> }): Promise<{ status: number; failed: Check[]; checks: Check[] }> {
  const res = await svc.request('/readyz');
  const body = (await res.json()) as { checks: Check[] };
  return { status: res.status, checks: body.checks, failed: body.checks.filter((c) => c.status !== 'passed') };
}

const attributeBody = { prompt: 'How do honeybees forage?', gross_revenue: '1.00' };

test('a ready service reports every spec readiness check as passed and its artifacts conform to their published schemas', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS });
  try {
    const r = await readiness(svc);
    assert.equal(r.status, 200);
    for (const name of SPEC_CHECKS) assert.equal(r.checks.find((c) => c.name === name)?.status, 'passed', name);
    const files = readdirSync(svc.artifactDir).filter((f) => f.endsWith('.json'));
    assert.equal(files.length, 7);
    for (const file of files) {
      const errors = publishedValidator(`readiness/schemas/${file.replace(/\.json$/, '')}.v1.schema.json`)(JSON.parse(readFileSync(path.join(svc.artifactDir, file), 'utf8')));
      assert.deepEqual(errors, [], file);
    }
    const manifest = await (await svc.request('/.well-known/attr.json')).json();
    assert.deepEqual(manifest, JSON.parse(readFileSync(path.join(svc.artifactDir, 'discovery-manifest.json'), 'utf8')));
  } finally {
    await svc.stop();
  }
});

test('editing a readiness artifact after start-up closes the gate: /readyz 503 and attribution refused with not_ready', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS });
  try {
    assert.equal((await svc.request('/v1/attribute', { auth: true, json: attributeBody })).status, 200);
    const file = path.join(svc.artifactDir, 'certification-report.json');
    const doc = JSON.parse(readFileSync(file, 'utf8'));
    doc.checks[0].detail = 'edited';
    writeFileSync(file, JSON.stringify(doc, null, 2));
    const r = await readiness(svc);
    assert.equal(r.status, 503);
    assert.deepEqual(r.failed.map((c) => c.name), ['production_readiness_report']);
    assert.match(r.failed[0]!.detail, /certification_report/);
    const refused = await svc.request('/v1/attribute', { auth: true, json: attributeBody });
    assert.equal(refused.status, 503);
    assert.equal(((await refused.json()) as { error: { code: string } }).error.code, 'not_ready');
    const metrics = (await (await svc.request('/v1/metrics', { auth: true })).json()) as Record<string, number>;
    assert.equal(metrics.ready_status, 0);
    assert.equal(readFileSync(svc.auditLogPath, 'utf8').trim().split('\n').length, 1, 'the refused request was not attributed or logged');
  } finally {
    await svc.stop();
  }
});

test('a deleted artifact closes the gate and names the missing file', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS });
  try {
    rmSync(path.join(svc.artifactDir, 'provider-attribution-card.json'));
    const r = await readiness(svc);
    assert.equal(r.status, 503);
    assert.ok(r.failed.some((c) => c.name === 'provider_attribution_card' && /unreadable/.test(c.detail)));
  } finally {
    await svc.stop();
  }
});

test('without ATTR_SERVICE_TOKEN_SHA256 the service starts not ready, admission is refused and protected routes answer 401', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, withoutToken: true, waitReady: false });
  try {
    const r = await readiness(svc);
    assert.equal(r.status, 503);
    const failed = r.failed.map((c) => c.name);
    assert.ok(failed.includes('auth_hash'));
    assert.ok(failed.includes('production_invocation_admission'));
    assert.equal((await svc.request('/v1/attribute', { auth: true, json: attributeBody })).status, 401);
  } finally {
    await svc.stop();
  }
});

test('a corpus whose content hash does not match fails engine load and certification', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attr-badcorpus-'));
  const corpus = path.join(dir, 'corpus.jsonl');
  const lines = readFileSync(EXAMPLE_CORPUS, 'utf8').split('\n');
  const first = JSON.parse(lines[0]!);
  first.chunks[0].text = `${first.chunks[0].text} Tampered.`;
  lines[0] = JSON.stringify(first);
  writeFileSync(corpus, lines.join('\n'));
  const svc = await startServiceProcess({ corpusPath: corpus, waitReady: false });
  try {
    const r = await readiness(svc);
    assert.equal(r.status, 503);
    const failed = Object.fromEntries(r.failed.map((c) => [c.name, c.detail]));
    assert.match(failed.engine_load ?? '', /corpus_hash_mismatch/);
    assert.ok('certification_report' in failed);
    assert.ok('source_grounded_response_receipt' in failed);
    assert.equal((await svc.request('/v1/attribute', { auth: true, json: attributeBody })).status, 503);
  } finally {
    await svc.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a broken audit log keeps the service not ready instead of extending a broken chain', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS });
  const auditLogPath = svc.auditLogPath;
  try {
    assert.equal((await svc.request('/v1/attribute', { auth: true, json: attributeBody })).status, 200);
  } finally {
    svc.child.kill('SIGTERM');
    await new Promise((r) => svc.child.once('exit', r));
  }
  writeFileSync(auditLogPath, readFileSync(auditLogPath, 'utf8').replace('"outcome":"ready"', '"outcome":"blocked"'));
  const again = await startServiceProcess({
    corpusPath: EXAMPLE_CORPUS,
    waitReady: false,
    configure: (d) => {
      d.audit_log_path = auditLogPath;
    },
  });
  try {
    const r = await readiness(again);
    assert.equal(r.status, 503);
    assert.match(r.failed.find((c) => c.name === 'audit_log')?.detail ?? '', /entry_hash_mismatch at line 1/);
  } finally {
    await again.stop();
    await svc.stop();
  }
});

test('a configured trust store is validated at start-up: a valid one is published in the manifest, an invalid one closes the gate', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'attr-ts-'));
  const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const good = path.join(dir, 'good.json');
  const bad = path.join(dir, 'bad.json');
  writeFileSync(good, JSON.stringify({ schema: 'attr-deployment-trust-store/v1', keys: [{ key_id: 'k1', issuer: 'ops', public_key_pem: pem, allowed_attestation_types: ['audit_log_integrity'] }] }));
  writeFileSync(bad, JSON.stringify({ schema: 'attr-deployment-trust-store/v1', keys: [] }));
  const ok = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, configure: (d) => void (d.trust_store_path = good) });
  try {
    const manifest = (await (await ok.request('/.well-known/attr.json')).json()) as { trust_store: { key_ids: string[] } };
    assert.deepEqual(manifest.trust_store.key_ids, ['k1']);
  } finally {
    await ok.stop();
  }
  const notOk = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, waitReady: false, configure: (d) => void (d.trust_store_path = bad) });
  try {
    const r = await readiness(notOk);
    assert.equal(r.status, 503);
    assert.ok(r.failed.some((c) => c.name === 'trust_store'));
  } finally {
    await notOk.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
