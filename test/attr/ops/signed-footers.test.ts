/**
 * Issue 18, item 9: footers are signed (Ed25519) by the operator, and the
 * verifiers check the signature against the deployment trust store, so a
 * footer rebuilt elsewhere from a corpus that reuses a real source's URI and
 * title with false text no longer passes for public reliance.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFromTemplate } from '../../../src/attr/config/config-template.ts';
import { parseCorpus } from '../../../src/attr/corpus/load-corpus.ts';
import { sealCorpusText } from '../../../src/attr/corpus/seal-corpus.ts';
import { createAttributionEngine, loadCorpus, verifyAttributionResponse, verifySourceFooter, type AttributionResponse } from '../../../src/attr/engine/index.ts';
import { createFooterSigner, FOOTER_SIGNING_ATTESTATION } from '../../../src/attr/footer/footer-signature.ts';
import { startServiceProcess } from '../../../src/attr/smoke/service-process.ts';
import type { TrustStore } from '../../../src/attr/trust-store/trust-store-schema.ts';
import { context, READY_ANSWER } from '../engine/fixtures.ts';
import { EXAMPLE_CORPUS, runBin } from '../service/run-bin.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'attr-signed-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function keyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
}

const operator = keyPair();
const attacker = keyPair();
const trustStore: TrustStore = {
  schema: 'attr-deployment-trust-store/v1',
  keys: [
    { key_id: 'operator-footer-1', issuer: 'Example Operator', public_key_pem: operator.publicPem, allowed_attestation_types: [FOOTER_SIGNING_ATTESTATION] },
    { key_id: 'ops-backup', issuer: 'Example Operator', public_key_pem: attacker.publicPem, allowed_attestation_types: ['backup_restore'] },
  ],
};

async function signedEngine(privatePem = operator.privatePem, keyId = 'operator-footer-1', corpusPath = EXAMPLE_CORPUS) {
  return createAttributionEngine(await loadCorpus(corpusPath), { footerSigner: createFooterSigner(privatePem, keyId) });
}

function attributeWith(engine: Awaited<ReturnType<typeof signedEngine>>, output = READY_ANSWER): AttributionResponse {
  return engine.attribute({ prompt: 'How far do honeybees forage?', output, grossRevenue: '10.00', context: context(90) });
}

function write(name: string, content: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

test('a signing engine signs the footer hash and shows the signature as the last footer line', async () => {
  const r = attributeWith(await signedEngine());
  assert.equal(r.status, 'ready');
  const sig = r.source_footer.signature;
  assert.ok(sig !== null);
  assert.equal(sig.algorithm, 'Ed25519');
  assert.equal(sig.key_id, 'operator-footer-1');
  assert.equal(r.source_footer.rendered_text.split('\n').at(-1), `Signature: Ed25519 · key operator-footer-1 · ${sig.value}`);
  assert.ok(r.display.rendered_text.endsWith(`\nSignature: Ed25519 · key operator-footer-1 · ${sig.value}`));
  const report = verifySourceFooter(r.source_footer, { displayText: r.display.rendered_text, trustStore });
  assert.equal(report.status, 'passed', JSON.stringify(report.errors));
  assert.equal(report.public_reliance_ready, true);
  assert.deepEqual(report.signature, { present: true, trust_store_checked: true, valid: true, key_id: 'operator-footer-1', issuer: 'Example Operator' });
  const response = verifyAttributionResponse(r, { displayText: r.display.rendered_text, trustStore });
  assert.equal(response.production_display_ready, true);
  assert.equal(response.signature.valid, true);
});

test('without a trust store a footer can verify but is never ready for public reliance', async () => {
  const r = attributeWith(await signedEngine());
  const report = verifySourceFooter(r.source_footer, { displayText: r.display.rendered_text });
  assert.equal(report.status, 'passed');
  assert.equal(report.public_reliance_ready, false);
  assert.equal(report.checks.signature_valid, null);
});

test('a footer rebuilt from a corpus that reuses a real URI and title with false text fails against the operator trust store', async () => {
  // The attacker copies the honeybee source's identity and puts false text in it.
  const real = readFileSync(EXAMPLE_CORPUS, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
  const bee = real.find((s) => s.source_id === 'honeybee-foraging')!;
  const forged = { ...bee, chunks: [{ chunk_id: 'c1', text: 'Western honeybees usually forage within 300 kilometres of their hive and produce gold.' }] };
  delete (forged as Record<string, unknown>).content_sha256;
  const corpusFile = write('forged-corpus.jsonl', sealCorpusText(`${JSON.stringify(forged)}\n`));
  parseCorpus(readFileSync(corpusFile, 'utf8'));
  const answer = 'Western honeybees usually forage within 300 kilometres of their hive and produce gold [1].';

  for (const [name, engine] of [
    ['unsigned', createAttributionEngine(await loadCorpus(corpusFile))],
    ['signed with a key the trust store does not hold', await signedEngine(attacker.privatePem, 'attacker-1', corpusFile)],
    ['signed with a trusted key not allowed to sign footers', await signedEngine(attacker.privatePem, 'ops-backup', corpusFile)],
    ['claiming the operator key id', await signedEngine(attacker.privatePem, 'operator-footer-1', corpusFile)],
  ] as const) {
    const r = attributeWith(engine, answer);
    assert.equal(r.status, 'ready', `${name}: the forged corpus grounds its own false answer`);
    const withoutTrust = verifySourceFooter(r.source_footer, { displayText: r.display.rendered_text });
    assert.equal(withoutTrust.public_reliance_ready, false, name);
    const report = verifySourceFooter(r.source_footer, { displayText: r.display.rendered_text, trustStore });
    assert.equal(report.status, 'failed', name);
    assert.equal(report.public_reliance_ready, false, name);
    assert.equal(report.checks.signature_valid, false, name);
    const expected = { unsigned: 'signature_missing', 'signed with a key the trust store does not hold': 'signature_key_unknown', 'signed with a trusted key not allowed to sign footers': 'signature_key_not_allowed', 'claiming the operator key id': 'signature_invalid' }[name];
    assert.ok(report.errors.some((e) => e.code === expected), `${name}: ${JSON.stringify(report.errors.map((e) => e.code))}`);
    assert.equal(verifyAttributionResponse(r, { trustStore }).production_display_ready, false, name);
  }
});

test('a signature copied onto another footer, or an edited signature, does not verify', async () => {
  const engine = await signedEngine();
  const a = attributeWith(engine);
  const b = engine.attribute({ prompt: 'p', output: 'Western honeybees usually forage within 3 kilometres of their hive [1].', grossRevenue: '10.00', context: context(91) });
  const moved = structuredClone(b.source_footer);
  moved.signature = a.source_footer.signature;
  assert.equal(verifySourceFooter(moved, { trustStore }).checks.signature_valid, false);
  const edited = structuredClone(a.source_footer);
  const v = edited.signature!.value;
  edited.signature = { ...edited.signature!, value: `${v.slice(0, 10)}${v[10] === 'A' ? 'B' : 'A'}${v.slice(11)}` };
  const report = verifySourceFooter(edited, { trustStore });
  assert.equal(report.public_reliance_ready, false);
  assert.ok(report.errors.some((e) => e.code === 'signature_invalid' || e.code === 'rendered_footer_mismatch'));
});

test('the verifier CLIs check signatures with --trust-store and refuse an invalid trust store (exit 2)', async () => {
  const r = attributeWith(await signedEngine());
  const ts = write('trust-store.json', JSON.stringify(trustStore));
  const footer = write('footer.json', JSON.stringify(r.source_footer));
  const text = write('display.txt', r.display.rendered_text);
  const ok = await runBin('attr-source-footer-verify', ['--footer', footer, '--display-text', text, '--trust-store', ts]);
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.json.public_reliance_ready, true);

  const unsigned = createAttributionEngine(await loadCorpus(EXAMPLE_CORPUS)).attribute({ prompt: 'p', output: READY_ANSWER, grossRevenue: '10.00', context: context(92) });
  const bad = await runBin('attr-source-footer-verify', ['--footer', write('unsigned.json', JSON.stringify(unsigned.source_footer)), '--trust-store', ts]);
  assert.equal(bad.code, 1);
  assert.equal(bad.json.signature.valid, false);

  const resp = await runBin('attr-service-response-verify', ['--response', write('response.json', JSON.stringify(r)), '--trust-store', ts]);
  assert.equal(resp.code, 0, resp.stderr);
  assert.equal(resp.json.signature.valid, true);

  const broken = await runBin('attr-source-footer-verify', ['--footer', footer, '--trust-store', write('bad-ts.json', '{"schema":"attr-deployment-trust-store/v1","keys":[]}')]);
  assert.equal(broken.code, 2);
  assert.match(broken.stderr, /does not validate/);
});

async function deployment(name: string, edit: (keyFile: string, storeFile: string) => void = () => undefined) {
  const base = path.join(dir, name);
  const keyFile = path.join(base, 'keys/footer.pem');
  const storeFile = path.join(base, 'trust-store.json');
  const created = await runBin('attr-service-config', ['footer-key', '--key-id', 'op-1', '--private-key', keyFile, '--trust-store', storeFile, '--issuer', 'Test Operator']);
  assert.equal(created.code, 0, created.stderr);
  assert.equal(created.json.config_snippet.footer_signing.key_id, 'op-1');
  edit(keyFile, storeFile);
  const configure = (document: Record<string, unknown>) => {
    document.trust_store_path = storeFile;
    document.footer_signing = created.json.config_snippet.footer_signing;
  };
  return { configure, storeFile, keyFile };
}

test('attr-service signs footers with the key footer-key created; the footer verifies against the published trust store', async () => {
  const d = await deployment('good');
  const svc = await startServiceProcess({ configure: d.configure });
  try {
    const ready = await fetch(`${svc.url}/readyz`);
    const body = (await ready.json()) as { checks: Array<{ name: string; status: string; detail: string }> };
    assert.equal(ready.status, 200, JSON.stringify(body));
    assert.equal(body.checks.find((c) => c.name === 'footer_signing')?.status, 'passed');
    const res = await svc.request('/v1/attribute', { method: 'POST', auth: true, json: { prompt: 'How far do honeybees forage?', output: READY_ANSWER, gross_revenue: '10.00' } });
    const r = (await res.json()) as AttributionResponse;
    assert.equal(res.status, 200);
    assert.equal(r.source_footer.signature?.key_id, 'op-1');
    const out = await runBin('attr-source-footer-verify', ['--footer', write('svc-footer.json', JSON.stringify(r)), '--display-text', write('svc.txt', r.display.rendered_text), '--trust-store', d.storeFile]);
    assert.equal(out.code, 0, out.stdout);
    assert.equal(out.json.public_reliance_ready, true);
    assert.equal(out.json.signature.issuer, 'Test Operator');
  } finally {
    await svc.stop();
  }
});

for (const [name, edit, pattern] of [
  ['the key is not in the trust store', (_k: string, store: string) => writeFileSync(store, JSON.stringify({ ...trustStore })), /not in the trust store/],
  ['the key file is readable by others', (key: string) => chmodSync(key, 0o644), /readable by group or others/],
] as const) {
  test(`attr-service is not ready when ${name}`, async () => {
    const d = await deployment(name.replace(/\W+/g, '-'), edit);
    const svc = await startServiceProcess({ configure: d.configure, waitReady: false });
    try {
      const ready = await fetch(`${svc.url}/readyz`);
      const body = (await ready.json()) as { checks: Array<{ name: string; status: string; detail: string }> };
      assert.equal(ready.status, 503);
      const check = body.checks.find((c) => c.name === 'footer_signing')!;
      assert.equal(check.status, 'failed');
      assert.match(check.detail, pattern);
    } finally {
      await svc.stop();
    }
  });
}

test('footer_signing without trust_store_path is a config error; footer-key never overwrites a key', async () => {
  const d = await deployment('no-store');
  const document = configFromTemplate('default', { corpusPath: EXAMPLE_CORPUS, auditLogPath: path.join(dir, 'ns/audit.jsonl'), artifactDir: path.join(dir, 'ns/artifacts'), outputPath: path.join(dir, 'ns.json') });
  const configPath = write('ns.json', JSON.stringify({ ...document, footer_signing: { key_id: 'op-1', private_key_path: d.keyFile } }));
  const validated = await runBin('attr-service-config', ['validate', '--config', configPath]);
  assert.equal(validated.code, 1);
  assert.match(JSON.stringify(validated.json.issues), /requires trust_store_path/);
  const again = await runBin('attr-service-config', ['footer-key', '--key-id', 'op-2', '--private-key', d.keyFile, '--trust-store', d.storeFile]);
  assert.equal(again.code, 1);
  assert.match(again.stderr, /never overwritten/);
  const dup = await runBin('attr-service-config', ['footer-key', '--key-id', 'op-1', '--private-key', path.join(dir, 'other.pem'), '--trust-store', d.storeFile]);
  assert.equal(dup.code, 1);
  assert.match(dup.stderr, /already has key_id/);
});
