import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import { SvcError } from '../errors.ts';
import type { PluginBundle } from './plugin-manifest.ts';
import { buildTrustList, rawPublicKeyBase64 } from './trust-list.ts';
import { checkBundle, parseManifest } from './verify-bundle.ts';

const keys = generateKeyPairSync('ed25519');
const other = generateKeyPairSync('ed25519');
const code = Buffer.from('globalThis.plugin = { verify: () => ({ passed: true }) };');
const manifest = {
  schema: 'svc.plugin/v1',
  id: 'acme.check',
  version: '1.2.3',
  kind: 'verifier',
  publisher: 'acme',
  summary: 's',
  capabilities: ['bytes.read'],
  entry: 'main.js',
  files: { 'main.js': createHash('sha256').update(code).digest('hex') },
};

function bundle(m: object = manifest, key = keys.privateKey, files: Record<string, string> = { 'main.js': code.toString('base64') }): PluginBundle {
  const text = JSON.stringify(m);
  return { manifest_json: text, signature: { algorithm: 'ed25519', publisher: 'acme', value: sign(null, Buffer.from(text), key).toString('base64') }, files };
}

describe('plugin bundle verification', () => {
  const trust = buildTrustList({ acme: rawPublicKeyBase64(keys.publicKey) });

  it('accepts a bundle signed by a trusted publisher whose files match', () => {
    const r = checkBundle(bundle(), trust);
    assert.deepEqual(r.verdict, { ok: true });
    assert.equal(r.bundleSha256, createHash('sha256').update(JSON.stringify(manifest)).digest('hex'));
  });

  it('names each failure', () => {
    const failure = (b: PluginBundle, t = trust) => {
      const v = checkBundle(b, t).verdict;
      return v.ok ? 'ok' : v.failure;
    };
    assert.equal(failure({ ...bundle(), signature: undefined } as PluginBundle), 'unsigned');
    assert.equal(failure(bundle(), buildTrustList({})), 'unknown_publisher');
    assert.equal(failure({ ...bundle(), signature: { ...bundle().signature!, publisher: 'evil' } }), 'publisher_mismatch');
    assert.equal(failure(bundle(manifest, other.privateKey)), 'bad_signature');
    assert.equal(failure({ ...bundle(), manifest_json: bundle().manifest_json.replace('1.2.3', '1.2.4') }), 'bad_signature');
    assert.equal(failure(bundle(manifest, keys.privateKey, { 'main.js': code.toString('base64'), 'extra.js': '' })), 'file_set_mismatch');
    assert.equal(failure(bundle(manifest, keys.privateKey, { 'main.js': Buffer.from('x').toString('base64') })), 'file_digest_mismatch');
  });

  it('treats malformed manifests as invalid requests, not signature failures', () => {
    const bad = (m: object) => assert.throws(() => parseManifest(JSON.stringify(m)), (e: unknown) => e instanceof SvcError && e.code === 'invalid_request');
    bad({ ...manifest, id: 'other.check' });
    bad({ ...manifest, entry: 'missing.js' });
    bad({ ...manifest, kind: 'transform' });
    bad({ ...manifest, semantic: true });
    bad({ ...manifest, kind: 'adapter' });
    bad({ ...manifest, version: 'v1' });
    assert.throws(() => parseManifest('{'), /not JSON/);
    assert.throws(() => checkBundle({ ...bundle(), files: { '../x': '' } }, trust), /file paths/);
  });

  it('reads trusted keys as PEM or raw base64 and refuses anything else', () => {
    const pem = keys.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    assert.equal(buildTrustList({ a: pem }).get('a')?.asymmetricKeyType, 'ed25519');
    assert.throws(() => buildTrustList({ a: 'bm90IGEga2V5' }), /plugins.trusted_publishers.a/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ format: 'pem', type: 'spki' }).toString();
    assert.throws(() => buildTrustList({ a: rsa }), /Ed25519/);
  });
});
