/**
 * svc.v1.PluginService and `svc plugin …` over the same domain calls as
 * `/v1/plugins`: roles and tenant-bound keys hold on gRPC; the real CLI
 * installs a signed bundle directory, enables and lists it; a bundle with one
 * byte changed is refused through the CLI as well.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { fromStruct, toStruct } from '../../src/svc/grpc/mapping/struct.ts';
import { runSvc } from '../helpers/cli.ts';
import { ADMIN_KEY, API_KEYS_JSON, KEYS } from '../helpers/server.ts';
import { type GrpcTestServer, grpcFailure, startGrpcTestServer, unary, withKey } from '../grpc/support/grpc-test-server.ts';
import { exampleDir, publisher, signed } from './bundles.ts';

type Json = Record<string, any>;
const TENANT_ADMIN = 'tenant-bound-admin-key-0123456789';
const trusted = publisher('example');

describe('plugins over gRPC and the CLI', () => {
  let s: GrpcTestServer;
  before(async () => {
    s = await startGrpcTestServer({
      env: {
        SVC_PLUGINS_TRUSTED_PUBLISHERS_JSON: JSON.stringify({ example: trusted.publicKey }),
        SVC_API_KEYS_JSON: JSON.stringify({ ...JSON.parse(API_KEYS_JSON), [TENANT_ADMIN]: { actor: 'acme-admin', tenant: 'acme', roles: ['admin'] } }),
      },
    });
  });
  after(async () => {
    await s.close();
  });

  test('PluginService: install refused for writers, tenant-bound admins and bad signatures; installed, enabled, listed, disabled by an admin', async () => {
    const bundle = signed(exampleDir('json-lines-check'), trusted);
    const install = (key: string, b: unknown) => unary<Json, Json>(s.clients.plugins, 'InstallPlugin', { bundle: toStruct(b as Record<string, unknown>) }, withKey(key));
    assert.equal((await grpcFailure(() => install(KEYS.acmeWriter, bundle))).code, grpc.status.PERMISSION_DENIED);
    assert.equal((await grpcFailure(() => install(TENANT_ADMIN, bundle))).code, grpc.status.PERMISSION_DENIED);
    const bad = await grpcFailure(() => install(ADMIN_KEY, { ...bundle, signature: undefined }));
    assert.equal(bad.code, grpc.status.FAILED_PRECONDITION);
    assert.equal((await grpcFailure(() => install(ADMIN_KEY, { manifest_json: '{', files: { a: 'AA==' } }))).code, grpc.status.INVALID_ARGUMENT);

    const ok = await install(ADMIN_KEY, bundle);
    assert.equal(ok.response.created, true);
    assert.equal(fromStruct(ok.response.result).status, 'disabled');
    const enabled = await unary<Json, Json>(s.clients.plugins, 'EnablePlugin', { id: 'example.json-lines-check' }, withKey(ADMIN_KEY));
    assert.equal(fromStruct(enabled.response.result).status, 'enabled');
    const listed = await unary<Json, Json>(s.clients.plugins, 'ListPlugins', {}, withKey(KEYS.acmeReader));
    assert.deepEqual((fromStruct(listed.response.result).plugins as Json[]).map((p) => [p.id, p.status]), [['example.json-lines-check', 'enabled']]);
    assert.equal((await grpcFailure(() => unary(s.clients.plugins, 'DisablePlugin', { id: 'example.json-lines-check' }, withKey(KEYS.acmeWriter)))).code, grpc.status.PERMISSION_DENIED);
    assert.equal((await grpcFailure(() => unary(s.clients.plugins, 'GetPlugin', { id: 'example.none' }, withKey(KEYS.acmeReader)))).code, grpc.status.NOT_FOUND);
    const disabled = await unary<Json, Json>(s.clients.plugins, 'DisablePlugin', { id: 'example.json-lines-check' }, withKey(ADMIN_KEY));
    assert.equal(fromStruct(disabled.response.result).status, 'disabled');
  });

  test('svc plugin install|enable|list|get against the running server; a modified bundle is refused', async () => {
    const env = { SVC_URL: s.http.url, SVC_API_KEY: ADMIN_KEY };
    const dir = exampleDir('csv-stats');
    signed(dir, trusted);
    const installed = await runSvc(['--json', 'plugin', 'install', dir], env);
    assert.equal(installed.status, 0, installed.stderr);
    assert.equal((JSON.parse(installed.stdout) as Json).id, 'example.csv-stats');
    assert.equal((await runSvc(['plugin', 'enable', 'example.csv-stats'], env)).status, 0);
    const got = await runSvc(['--json', 'plugin', 'get', 'example.csv-stats'], env);
    assert.equal((JSON.parse(got.stdout) as Json).status, 'enabled');
    const called = await runSvc(['--json', 'adapter', 'call', 'csv', 'stats', '--body', '{"csv":"x,y\\n1,2\\n"}'], env);
    assert.equal(called.status, 0, called.stderr);
    assert.deepEqual(JSON.parse(called.stdout), { columns: ['x', 'y'], rows: 1 });

    const tampered = exampleDir('redact-emails');
    signed(tampered, trusted);
    const file = path.join(tampered, 'plugin.js');
    writeFileSync(file, readFileSync(file, 'utf8').replace('[redacted]', '[REDACTED]'));
    const refused = await runSvc(['plugin', 'install', tampered], env);
    assert.equal(refused.status, 1);
    assert.match(refused.stderr, /plugin_signature_invalid/);
    const list = await runSvc(['--json', 'plugin', 'list'], env);
    assert.deepEqual((JSON.parse(list.stdout) as Json).plugins.map((p: Json) => p.id), ['example.csv-stats', 'example.json-lines-check'], 'the modified bundle was not installed');
  });

  test('svc execute --transform plugin:<id> streams the file raw; the plugin sees the bytes the client declared', async () => {
    const env = { SVC_URL: s.http.url, SVC_API_KEY: ADMIN_KEY };
    const dir = exampleDir('redact-emails');
    signed(dir, trusted);
    assert.equal((await runSvc(['plugin', 'install', dir], env)).status, 0);
    assert.equal((await runSvc(['plugin', 'enable', 'example.redact-emails'], env)).status, 0);
    const file = path.join(dir, 'note.txt');
    writeFileSync(file, 'write to ann@example.org or bob@example.com\n');
    const r = await runSvc(['--json', 'execute', '--kind', 'byte_object', '--file', file, '--contract', 'semantic', '--mode', 'enforce', '--transform', 'plugin:example.redact-emails'], env);
    assert.equal(r.status, 0, r.stderr);
    const result = JSON.parse(r.stdout) as Json;
    assert.deepEqual(result.details.plugins, [{ name: 'example.redact-emails@1.0.0', kind: 'transform', outcome: 'applied' }]);
    const restored = await s.http.call('POST', `/v1/manifests/${result.manifest_id}/rehydrate`, { body: {} });
    assert.equal(await restored.text(), 'write to [redacted] or [redacted]\n');
  });
});
