import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';
import { publishedValidator, runBin } from './run-bin.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'attr-trust-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const schemaErrors = publishedValidator('trust-store/schemas/attr-deployment-trust-store.v1.schema.json');
const reportErrors = publishedValidator('trust-store/schemas/attr-trust-store-validation-report.v1.schema.json');
const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();

function goodStore(): any {
  return {
    schema: 'attr-deployment-trust-store/v1',
    keys: [
      { key_id: 'ops-2025', issuer: 'Example Operator', public_key_pem: pem, allowed_attestation_types: ['audit_log_integrity', 'runtime_controls'] },
      { key_id: 'pay-1', issuer: 'Payments', public_key_pem: pem, allowed_attestation_types: ['payment_processor'] },
    ],
  };
}

let n = 0;
async function validate(document: unknown) {
  const file = path.join(dir, `store-${n++}.json`);
  writeFileSync(file, typeof document === 'string' ? document : JSON.stringify(document));
  const result = await runBin('attr-trust-store-validate', ['--file', file]);
  assert.deepEqual(reportErrors(result.json), [], 'the report conforms to its published schema');
  return result;
}

test('a well-formed trust store validates with exit 0 and lists key fingerprints', async () => {
  const store = goodStore();
  assert.deepEqual(schemaErrors(store), []);
  const result = await validate(store);
  assert.equal(result.code, 0);
  assert.equal(result.json.valid, true);
  assert.equal(result.json.keys.length, 2);
  assert.match(result.json.keys[0].spki_sha256, /^[0-9a-f]{64}$/);
});

const BAD: Array<[string, (s: any) => void, string]> = [
  ['an extra property at the root', (s) => (s.comment = 'x'), '/comment'],
  ['an extra property in a key', (s) => (s.keys[0].expires = '2030'), '/keys/0/expires'],
  ['a wrong schema id', (s) => (s.schema = 'attr-deployment-trust-store/v2'), '/schema'],
  ['no keys', (s) => (s.keys = []), '/keys'],
  ['an empty key id', (s) => (s.keys[0].key_id = ''), '/keys/0/key_id'],
  ['an empty issuer', (s) => (s.keys[1].issuer = ''), '/keys/1/issuer'],
  ['a PEM without the public-key header', (s) => (s.keys[0].public_key_pem = s.keys[0].public_key_pem.replace('BEGIN PUBLIC KEY', 'BEGIN PRIVATE KEY')), '/keys/0/public_key_pem'],
  ['no allowed attestation types', (s) => (s.keys[0].allowed_attestation_types = []), '/keys/0/allowed_attestation_types'],
  ['a repeated attestation type', (s) => (s.keys[0].allowed_attestation_types = ['backup_restore', 'backup_restore']), '/keys/0/allowed_attestation_types'],
  ['an unknown attestation type', (s) => (s.keys[0].allowed_attestation_types = ['root_of_trust']), '/keys/0/allowed_attestation_types/0'],
  ['a missing issuer', (s) => delete s.keys[0].issuer, '/keys/0'],
];

for (const [what, mutate, pathExpected] of BAD) {
  test(`a trust store with ${what} is rejected by the published schema and the validator`, async () => {
    const store = goodStore();
    mutate(store);
    assert.notDeepEqual(schemaErrors(store), [], 'the published JSON Schema rejects it');
    const result = await validate(store);
    assert.equal(result.code, 1);
    assert.equal(result.json.valid, false);
    assert.ok(
      result.json.schema_issues.some((i: { path: string }) => i.path === pathExpected),
      `expected an issue at ${pathExpected}, got ${JSON.stringify(result.json.schema_issues)}`,
    );
  });
}

test('a PEM with the right header that does not parse is reported as a key issue', async () => {
  const store = goodStore();
  store.keys[0].public_key_pem = '-----BEGIN PUBLIC KEY-----\nnot base64 at all\n-----END PUBLIC KEY-----\n';
  assert.deepEqual(schemaErrors(store), [], 'the schema only checks the header line');
  const result = await validate(store);
  assert.equal(result.code, 1);
  assert.deepEqual(result.json.key_issues.map((i: { path: string }) => i.path), ['/keys/0/public_key_pem']);
});

test('a file that is not JSON is reported, not thrown', async () => {
  const result = await validate('{ nope');
  assert.equal(result.code, 1);
  assert.equal(result.json.schema_issues[0].message, 'not valid JSON');
});
