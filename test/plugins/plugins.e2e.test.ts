/**
 * Signed plugins through the real HTTP server, on SQLite and PostgreSQL
 * (docs/plugins.md): the signature matrix at install, enable and load, each
 * refusal with its ledger event, metric and critical alert; transforms,
 * verifiers and adapters at work; the rollback switch; limits that stop a
 * plugin while svc keeps serving; roles and tenant-bound keys; bad bundles
 * refused with nothing stored.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { engines } from '../helpers/engines.ts';
import { API_KEYS_JSON, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { exampleDir, inlineDir, publisher, signed } from './bundles.ts';

type Json = Record<string, any>;

const TENANT_ADMIN = 'tenant-bound-admin-key-0123456789';
const trusted = publisher('example');
const rogue = publisher('rogue');
/** Same publisher name as `trusted`, a key svc does not know. */
const impostor = publisher('example');

async function json(r: Response): Promise<Json> {
  return (await r.json()) as Json;
}

for (const engine of engines()) {
  describe(`signed plugins on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({
        engine: engine.name,
        env: {
          SVC_PLUGINS_TRUSTED_PUBLISHERS_JSON: JSON.stringify({ example: trusted.publicKey }),
          SVC_API_KEYS_JSON: JSON.stringify({ ...JSON.parse(API_KEYS_JSON), [TENANT_ADMIN]: { actor: 'acme-admin', tenant: 'acme', roles: ['admin'] } }),
        },
        overrides: { 'plugins.max_timeout_ms': 300, 'plugins.max_memory_bytes': 8 * 1024 * 1024 },
      });
    });
    after(async () => {
      await s.close();
    });

    const ledger = async (type: string) => (await s.app.store.db.all<{ payload: string }>('SELECT payload FROM ledger_events WHERE type = $1 ORDER BY seq', [type])).map((r) => JSON.parse(r.payload) as Json);
    const metric = async (name: string, labels: string) => {
      const text = await (await s.call('GET', '/metrics')).text();
      const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const install = (bundle: unknown, key?: string) => s.call('POST', '/v1/plugins', { body: bundle, ...(key ? { key } : {}) });
    const execute = (text: string, transforms: string[], contract = 'semantic') =>
      s.call('POST', '/v1/work-units/execute', {
        key: KEYS.acmeWriter,
        body: { kind: 'byte_object', logical_ref: 's3://notes/a.txt', requested_contract: contract, payload: { _svc_encoding: 'base64', data: Buffer.from(text).toString('base64') }, mode: 'enforce', transforms },
      });

    test('signature matrix at install: unsigned, unknown publisher, unknown key, modified → refused with event, metric and alert; valid → installed disabled', async () => {
      const before = await metric('svc_plugin_signature_failures_total', 'stage="install"');
      const unsigned = await install({ ...signed(exampleDir('redact-emails'), trusted), signature: undefined });
      const rogueDir = exampleDir('redact-emails');
      const m = JSON.parse(readFileSync(path.join(rogueDir, 'manifest.json'), 'utf8')) as Json;
      writeFileSync(path.join(rogueDir, 'manifest.json'), JSON.stringify({ ...m, id: 'rogue.redact-emails', publisher: 'rogue' }));
      const unknownPublisher = await install(signed(rogueDir, rogue));
      const unknownKey = await install(signed(exampleDir('redact-emails'), impostor));
      const modifiedDir = exampleDir('redact-emails');
      const modified = signed(modifiedDir, trusted);
      const code = Buffer.from(modified.files['plugin.js'] as string, 'base64');
      code[code.length - 2]! ^= 1; // one byte changed after signing
      const modifiedRes = await install({ ...modified, files: { ...modified.files, 'plugin.js': code.toString('base64') } });

      const failures: string[] = [];
      for (const r of [unsigned, unknownPublisher, unknownKey, modifiedRes]) {
        assert.equal(r.status, 422);
        const body = await json(r);
        assert.equal(body.error.code, 'plugin_signature_invalid');
        assert.equal(body.error.retryable, false);
        failures.push(body.error.details.failure);
      }
      assert.deepEqual(failures, ['unsigned', 'unknown_publisher', 'bad_signature', 'file_digest_mismatch']);
      assert.deepEqual(
        (await ledger('plugin.signature_failed')).map((e) => [e.failure, e.stage]),
        failures.map((f) => [f, 'install']),
      );
      assert.equal(await metric('svc_plugin_signature_failures_total', 'stage="install"'), before + 4);
      const alerts = await json(await s.call('GET', '/v1/admin/alerts'));
      assert.equal(alerts.alerts.find((a: Json) => a.name === 'SvcPluginSignatureFailure').state, 'firing');
      assert.equal((await s.app.store.plugins.list()).length, 0, 'nothing refused was stored');

      const valid = await install(signed(exampleDir('redact-emails'), trusted));
      assert.equal(valid.status, 201);
      const view = await json(valid);
      assert.equal(view.id, 'example.redact-emails');
      assert.equal(view.status, 'disabled', 'a new plugin starts disabled');
      assert.equal(view.semantic, true);
      assert.equal((await install(signed(exampleDir('redact-emails'), trusted))).status, 200, 'the same bundle again is a no-op');
      assert.equal((await ledger('plugin.installed')).length, 1);
    });

    test('a semantic plugin transform runs under the semantic contract, is denied under exact_bytes, and is unavailable when disabled or switched off', async () => {
      const disabled = await execute('mail bob@example.com today', ['plugin:example.redact-emails']);
      assert.equal(disabled.status, 503);
      const d = await json(disabled);
      assert.equal(d.error.code, 'plugin_unavailable');
      assert.equal(d.error.retryable, false);

      assert.equal((await s.call('POST', '/v1/plugins/example.redact-emails/enable')).status, 200);
      assert.equal((await ledger('plugin.enabled')).length, 1);
      const ok = await execute('mail bob@example.com today', ['plugin:example.redact-emails']);
      assert.equal(ok.status, 200, await ok.clone().text());
      const result = await json(ok);
      assert.deepEqual(result.details.plugins, [{ name: 'example.redact-emails@1.0.0', kind: 'transform', outcome: 'applied' }]);
      const restored = await s.call('POST', `/v1/manifests/${result.manifest_id}/rehydrate`, { key: KEYS.acmeWriter, body: {} });
      assert.equal(await restored.text(), 'mail [redacted] today');
      const manifest = await json(await s.call('GET', `/v1/manifests/${result.manifest_id}`, { key: KEYS.acmeWriter }));
      assert.ok(JSON.stringify(manifest).includes('plugin:example.redact-emails@1.0.0'), 'the manifest names the plugin with its version');

      const exact = await execute('mail bob@example.com today', ['plugin:example.redact-emails'], 'exact_bytes');
      assert.equal(exact.status, 403);
      assert.equal((await json(exact)).error.code, 'policy_denied');

      const sw = await s.call('POST', '/v1/admin/switches', { body: { switch: 'disable_plugin', name: 'example.redact-emails', disabled: true } });
      assert.equal(sw.status, 200, await sw.clone().text());
      const off = await execute('x@y.zz', ['plugin:example.redact-emails']);
      assert.equal(off.status, 503);
      assert.equal((await json(off)).error.details.reason, 'switched_off');
      await s.call('POST', '/v1/admin/switches', { body: { switch: 'disable_plugin', name: 'example.redact-emails', disabled: false } });
    });

    test('a plugin verifier passes or stops the work unit before anything is stored', async () => {
      assert.equal((await install(signed(exampleDir('json-lines-check'), trusted))).status, 201);
      assert.equal((await s.call('POST', '/v1/plugins/example.json-lines-check/enable')).status, 200);
      const pass = await execute('{"a":1}\n{"b":2}\n', ['plugin:example.json-lines-check'], 'exact_bytes');
      assert.equal(pass.status, 200, await pass.clone().text());
      assert.deepEqual((await json(pass)).details.plugins, [{ name: 'example.json-lines-check@1.0.0', kind: 'verifier', outcome: 'passed' }]);
      const manifestsBefore = (await s.app.store.db.all('SELECT id FROM manifests')).length;
      const fail = await execute('{"a":1}\nnot json\n', ['plugin:example.json-lines-check'], 'exact_bytes');
      assert.equal(fail.status, 502);
      const body = await json(fail);
      assert.equal(body.error.code, 'verifier_failed');
      assert.equal(body.error.details.verifier, 'example.json-lines-check@1.0.0');
      assert.equal((await s.app.store.db.all('SELECT id FROM manifests')).length, manifestsBefore, 'nothing stored');
    });

    test('an adapter plugin joins /v1/adapters; disabled it is adapter_unavailable', async () => {
      assert.equal((await install(signed(exampleDir('csv-stats'), trusted))).status, 201);
      const listed = await json(await s.call('GET', '/v1/adapters', { key: KEYS.acmeReader }));
      assert.deepEqual(
        listed.adapters.find((a: Json) => a.name === 'csv'),
        { name: 'csv', family: 'table', version: '1.0.0', source: 'plugin', summary: listed.adapters.find((a: Json) => a.name === 'csv').summary, operations: ['stats'], status: 'disabled', plugin: 'example.csv-stats' },
      );
      const off = await s.call('POST', '/v1/adapters/csv/stats', { key: KEYS.acmeWriter, body: { csv: 'a,b\n1,2\n' } });
      assert.equal(off.status, 503);
      assert.equal((await json(off)).error.code, 'adapter_unavailable');
      await s.call('POST', '/v1/plugins/example.csv-stats/enable');
      const on = await s.call('POST', '/v1/adapters/csv/stats', { key: KEYS.acmeWriter, body: { csv: 'a,b\n1,2\n3,4\n' } });
      assert.equal(on.status, 200, await on.clone().text());
      assert.deepEqual(await json(on), { columns: ['a', 'b'], rows: 2 });
      assert.equal((await s.call('POST', '/v1/adapters/csv/nope', { key: KEYS.acmeWriter, body: {} })).status, 404);
      assert.equal((await s.call('POST', '/v1/adapters/hdf5/stats', { key: KEYS.acmeWriter, body: {} })).status, 503);
    });

    test('the signature is checked again at enable and at load: a tampered row is refused and audited', async () => {
      const dir = exampleDir('redact-emails');
      const m = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8')) as Json;
      writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ ...m, id: 'example.tampered', version: '2.0.0' }));
      assert.equal((await install(signed(dir, trusted))).status, 201);
      const evil = Buffer.from('globalThis.plugin = { transform: () => "pwned" };').toString('base64');
      const original = (await s.app.store.plugins.get('example.tampered'))!;
      await s.app.store.db.run('UPDATE plugins SET files = $1 WHERE id = $2', [JSON.stringify({ 'plugin.js': evil }), 'example.tampered']);
      const enable = await s.call('POST', '/v1/plugins/example.tampered/enable');
      assert.equal(enable.status, 422);
      assert.equal((await json(enable)).error.details.failure, 'file_digest_mismatch');
      // Enabled while intact, then tampered before its first load in this process.
      await s.app.store.db.run('UPDATE plugins SET files = $1 WHERE id = $2', [JSON.stringify(original.files), 'example.tampered']);
      assert.equal((await s.call('POST', '/v1/plugins/example.tampered/enable')).status, 200);
      await s.app.store.db.run('UPDATE plugins SET files = $1 WHERE id = $2', [JSON.stringify({ 'plugin.js': evil }), 'example.tampered']);
      const call = await execute('a@b.cc', ['plugin:example.tampered']);
      assert.equal(call.status, 503);
      const body = await json(call);
      assert.equal(body.error.code, 'plugin_unavailable');
      assert.equal(body.error.details.reason, 'signature_failed');
      assert.deepEqual((await ledger('plugin.signature_failed')).slice(-2).map((e) => [e.plugin_id, e.stage]), [
        ['example.tampered', 'enable'],
        ['example.tampered', 'load'],
      ]);
      assert.equal(await metric('svc_plugin_signature_failures_total', 'stage="load"'), 1);
      // A stored manifest that no longer parses is not what was signed: refused and audited like a bad signature.
      await s.app.store.db.run('UPDATE plugins SET manifest_json = $1, status = $2 WHERE id = $3', ['{', 'disabled', 'example.tampered']);
      const garbled = await s.call('POST', '/v1/plugins/example.tampered/enable');
      assert.equal(garbled.status, 422);
      assert.equal((await json(garbled)).error.details.failure, 'bad_signature');
      assert.deepEqual((await ledger('plugin.signature_failed')).at(-1)?.stage, 'enable');
    });

    test('a plugin that loops forever or allocates without bound is stopped at its limit; svc keeps serving', async () => {
      const loop = inlineDir({ id: 'example.loop', version: '1.0.0', kind: 'transform', publisher: 'example', summary: 'never returns', semantic: false }, 'globalThis.plugin = { transform: () => { for (;;) {} } };');
      const hog = inlineDir({ id: 'example.hog', version: '1.0.0', kind: 'transform', publisher: 'example', summary: 'allocates forever', semantic: false }, 'globalThis.plugin = { transform: () => { const a = []; for (;;) a.push("x".repeat(65536) + a.length); } };');
      for (const [dir, id] of [[loop, 'example.loop'], [hog, 'example.hog']] as const) {
        assert.equal((await install(signed(dir, trusted))).status, 201);
        assert.equal((await s.call('POST', `/v1/plugins/${id}/enable`)).status, 200);
        const started = Date.now();
        const r = await execute('data', [`plugin:${id}`], 'exact_bytes');
        assert.equal(r.status, 503, id);
        const body = await json(r);
        assert.equal(body.error.code, 'plugin_unavailable');
        assert.ok(['timeout', 'memory'].includes(body.error.details.reason), `${id}: ${body.error.details.reason}`);
        assert.ok(Date.now() - started < 5000, `${id} stopped in time`);
        assert.equal((await s.call('GET', '/healthz')).status, 200);
        assert.ok((await metric('svc_plugin_errors_total', `plugin="${id}",reason="${body.error.details.reason}"`)) >= 1);
      }
      const stillServing = await execute('{"ok":true}\n', ['plugin:example.json-lines-check'], 'exact_bytes');
      assert.equal(stillServing.status, 200);
      // The plugin error rate on the dashboard comes from the call events.
      const calls = await ledger('plugin.called');
      const failed = await ledger('plugin.call_failed');
      assert.deepEqual(failed.slice(-2).map((e) => [e.plugin_id, e.kind]), [['example.loop', 'transform'], ['example.hog', 'transform']]);
      assert.ok(calls.every((e) => !JSON.stringify(e).includes('bob@example.com')), 'call events carry no payload');
      const dash = await json(await s.call('GET', '/v1/reports/dashboard'));
      assert.equal(dash.sections.platform.plugin_calls.value, calls.length + failed.length);
      assert.equal(dash.sections.platform.plugin_failures.value, failed.length);
      assert.equal(dash.sections.platform.plugin_error_rate.value, failed.length / (calls.length + failed.length));
    });

    test('roles and tenants: readers list, writers cannot install, tenant-bound admins cannot manage, operators can disable', async () => {
      assert.equal((await s.call('GET', '/v1/plugins', { key: null })).status, 401);
      const list = await json(await s.call('GET', '/v1/plugins', { key: KEYS.acmeReader }));
      assert.ok(list.plugins.some((p: Json) => p.id === 'example.redact-emails'));
      const bundle = signed(exampleDir('redact-emails'), trusted);
      assert.equal((await json(await install(bundle, KEYS.acmeWriter))).error.code, 'forbidden');
      assert.equal((await json(await install(bundle, TENANT_ADMIN))).error.code, 'tenant_forbidden');
      assert.equal((await json(await s.call('POST', '/v1/plugins/example.redact-emails/enable', { key: KEYS.operator }))).error.code, 'forbidden');
      assert.equal((await json(await s.call('POST', '/v1/plugins/example.redact-emails/disable', { key: TENANT_ADMIN }))).error.code, 'tenant_forbidden');
      assert.equal((await s.call('POST', '/v1/plugins/example.redact-emails/enable')).status, 200);
      const disabled = await s.call('POST', '/v1/plugins/example.redact-emails/disable', { key: KEYS.operator });
      assert.equal(disabled.status, 200);
      assert.equal((await json(disabled)).status, 'disabled');
      assert.equal((await ledger('plugin.disabled')).at(-1)?.plugin_id, 'example.redact-emails');
      assert.equal((await s.call('GET', '/v1/plugins/example.nope', { key: KEYS.acmeReader })).status, 404);
    });

    test('bad bundles and manifests are clear 4xx errors and store nothing', async () => {
      const count = async () => (await s.app.store.plugins.list()).length;
      const events = async () => (await ledger('plugin.signature_failed')).length;
      const [c0, e0] = [await count(), await events()];
      const good = signed(exampleDir('json-lines-check'), trusted);
      const cases: [unknown, number, string][] = [
        [{ ...good, manifest_json: '{not json' }, 400, 'not JSON'],
        [{ ...good, manifest_json: JSON.stringify({ schema: 'svc.plugin/v1', id: 'example.x' }) }, 400, 'invalid plugin manifest'],
        [{ ...good, manifest_json: good.manifest_json.replace('"verifier"', '"transform"') }, 400, '/semantic'],
        [{ ...good, files: { '../etc/passwd': 'AA==' } }, 400, 'file paths'],
        [{ ...good, signature: { algorithm: 'rsa', publisher: 'example', value: 'AA==' } }, 400, 'invalid plugin bundle'],
        [{ manifest_json: good.manifest_json }, 400, 'invalid plugin bundle'],
        [{ ...good, files: { 'plugin.js': 'A'.repeat(5 * 1024 * 1024) } }, 413, ''],
      ];
      for (const [body, status, text] of cases) {
        const r = await install(body);
        assert.equal(r.status, status, JSON.stringify(body).slice(0, 120));
        const b = await json(r);
        assert.ok(b.error.message.includes(text), b.error.message);
      }
      assert.equal(await count(), c0);
      assert.equal(await events(), e0, 'malformed bundles are not signature failures');
    });
  });
}
