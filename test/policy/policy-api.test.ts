/**
 * Policies through the real HTTP server and CLI, on SQLite and PostgreSQL:
 * the built-in guarantees, validation with line numbers, publish (with and
 * without the role), reload (good and broken), bundle listing.
 */
import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { engines } from '../helpers/engines.ts';
import { BUILTIN_BUNDLE_VERSION } from '../../src/svc/policy/default-bundle.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { ledgerEvents } from './support/ledger.ts';

const bundle = (version: string, extra = '') => `name: default
version: "${version}"
policies:
  - id: pol_deny_gzip
    effect: deny
    match: { action: gzip }
${extra}`;

/** Runs the CLI without blocking the event loop (the server under test lives in this process). */
function svcCli(args: string[], env: Record<string, string>): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/svc.mjs', ...args], { encoding: 'utf8', env: { ...process.env, ...env } }, (err, stdout, stderr) => {
      resolve({ status: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

const evaluateBody = { work_unit_kind: 'byte_object', contract: 'semantic', mode: 'enforce', action: 'zstd' };

for (const engine of engines()) {
  describe(`policies API on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => {
      await s?.close();
    });

    it('reloads the default bundle on a fresh start (the built-in bundle is written out at first start)', async () => {
      const res = await s.call('POST', '/v1/policies/bundles/default/reload', { key: KEYS.publisher });
      assert.equal(res.status, 200, await res.clone().text());
      const body = (await res.json()) as { reloaded: boolean; bundle: { version: string } };
      assert.equal(body.reloaded, true);
      assert.equal(body.bundle.version, BUILTIN_BUNDLE_VERSION);
    });

    it('denies a semantic transform under exact_bytes whatever the bundle says, naming transform and contract', async () => {
      const res = await s.call('POST', '/v1/policies/evaluate', { key: KEYS.acmeWriter, body: { ...evaluateBody, contract: 'exact_bytes', action: 'semantic_summary' } });
      assert.equal(res.status, 200);
      const body = (await res.json()) as { decision: { allow: boolean; reasons: string[]; guarantee: string }; bundle: { id: string } };
      assert.equal(body.decision.allow, false);
      assert.equal(body.decision.guarantee, 'exact_bytes_no_semantic');
      assert.match(body.decision.reasons[0] ?? '', /semantic_summary.*exact_bytes/);
      assert.equal(res.headers.get('x-svc-policy-bundle'), body.bundle.id);
    });

    it('denies object delete when no policy allows it', async () => {
      const res = await s.call('POST', '/v1/policies/evaluate', { key: KEYS.acmeWriter, body: { ...evaluateBody, action: 'object.delete', action_class: 'operation' } });
      const body = (await res.json()) as { decision: { allow: boolean; guarantee: string } };
      assert.deepEqual([body.decision.allow, body.decision.guarantee], [false, 'object_delete_default_deny']);
    });

    it('refuses a tenant-bound caller evaluating for another tenant', async () => {
      const res = await s.call('POST', '/v1/policies/evaluate', { key: KEYS.acmeWriter, body: { ...evaluateBody, tenant: 'globex' } });
      assert.equal(res.status, 403);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'tenant_forbidden');
    });

    it('validates a document and reports errors with line numbers', async () => {
      const res = await s.call('POST', '/v1/policies/validate', { key: KEYS.acmeReader, body: { document: bundle('1').replace('effect: deny', 'effect: block') } });
      const body = (await res.json()) as { valid: boolean; errors: Array<{ line: number; message: string }> };
      assert.equal(body.valid, false);
      assert.equal(body.errors[0]?.line, 5);
    });

    it('refuses a publish without the publisher role and records the refusal', async () => {
      const res = await s.call('POST', '/v1/policies/bundles/default/publish', { key: KEYS.acmeWriter, body: { document: bundle('1') } });
      assert.equal(res.status, 403);
      assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'forbidden');
      const refused = await ledgerEvents(s, ['policy.bundle.publish_refused']);
      assert.ok(refused.some((e) => e.actor === 'acme-writer' && e.payload['reason'] === 'forbidden'));
    });

    it('publishes with the publisher role, puts the bundle in force and records version and hash', async () => {
      const res = await s.call('POST', '/v1/policies/bundles/default/publish', { key: KEYS.publisher, body: { document: bundle('1') } });
      assert.equal(res.status, 201);
      const published = (await res.json()) as { bundle: { id: string; hash: string; version: string } };
      const ev = await s.call('POST', '/v1/policies/evaluate', { key: KEYS.acmeWriter, body: { ...evaluateBody, action: 'gzip' } });
      const decision = ((await ev.json()) as { decision: { allow: boolean; bundle: { hash: string } } }).decision;
      assert.equal(decision.allow, false);
      assert.equal(decision.bundle.hash, published.bundle.hash);
      const events = await ledgerEvents(s, ['policy.bundle.published']);
      assert.ok(events.some((e) => e.actor === 'publisher' && e.payload['bundle_hash'] === published.bundle.hash && e.policy_bundle_id === published.bundle.id));
    });

    it('keeps the bundle in force when the file on disk is broken, and says why', async () => {
      const before = (await (await s.call('GET', '/v1/policies/bundles/default')).json()) as { bundle: { id: string } };
      writeFileSync(s.app.policy.store.activePath('default'), bundle('2').replace('effect: deny', 'effect: sometimes'));
      const res = await s.call('POST', '/v1/policies/bundles/default/reload', { key: KEYS.publisher });
      assert.equal(res.status, 400);
      const err = ((await res.json()) as { error: { code: string; details: { errors: Array<{ line: number }>; kept: { id: string } } } }).error;
      assert.equal(err.details.errors[0]?.line, 5);
      assert.equal(err.details.kept.id, before.bundle.id);
      assert.equal(s.app.policy.engine.activeBundle().id, before.bundle.id);
      assert.equal((await ledgerEvents(s, ['policy.bundle.reload_failed'])).length, 1);
    });

    it('reloads a valid edited bundle and writes policy.bundle.reloaded with version and hash', async () => {
      writeFileSync(s.app.policy.store.activePath('default'), bundle('2', '  - id: pol_deny_dedupe\n    effect: deny\n    match: { action: dedupe }\n'));
      const res = await s.call('POST', '/v1/policies/bundles/default/reload', { key: KEYS.publisher });
      assert.equal(res.status, 200);
      const r = (await res.json()) as { bundle: { version: string; hash: string } };
      assert.equal(r.bundle.version, '2');
      const event = (await ledgerEvents(s, ['policy.bundle.reloaded'])).find((e) => e.payload['version'] === '2');
      assert.deepEqual([event?.payload['version'], event?.payload['bundle_hash']], ['2', r.bundle.hash]);
    });

    it('lists bundles with their versions and serves one version from history', async () => {
      const list = (await (await s.call('GET', '/v1/policies/bundles', { key: KEYS.acmeReader })).json()) as { bundles: Array<{ name: string; versions: Array<{ version: string }> }> };
      assert.deepEqual(list.bundles.find((b) => b.name === 'default')?.versions.map((v) => v.version), [BUILTIN_BUNDLE_VERSION, '1', '2']);
      const v1 = (await (await s.call('GET', '/v1/policies/bundles/default?version=1', { key: KEYS.acmeReader })).json()) as { document: { policies: unknown[] } };
      assert.equal(v1.document.policies.length, 1);
    });

    it('`svc policy validate` works offline and exits non-zero with file:line:column errors', () => {
      const file = path.join(s.target.stateDir, 'broken.yaml');
      writeFileSync(file, bundle('9').replace('effect: deny', 'effect: nope'));
      const r = spawnSync(process.execPath, ['bin/svc.mjs', 'policy', 'validate', file], { encoding: 'utf8', env: { ...process.env, SVC_URL: 'http://127.0.0.1:9' } });
      assert.equal(r.status, 3);
      assert.match(r.stderr, new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:5:13: must be one of`));
    });

    it('`svc policy reload --name` reloads through the server and fails without the role', async () => {
      const r = await svcCli(['policy', 'reload', '--name', 'default', '--json'], { SVC_URL: s.url, SVC_API_KEY: KEYS.publisher });
      assert.equal(r.status, 0, r.stderr);
      assert.equal((JSON.parse(r.stdout) as { reloaded: boolean }).reloaded, true);
      const denied = await svcCli(['policy', 'reload', '--name', 'default'], { SVC_URL: s.url, SVC_API_KEY: KEYS.acmeReader });
      assert.equal(denied.status, 1);
    });
  });
}
