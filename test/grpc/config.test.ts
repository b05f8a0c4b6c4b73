/** The `grpc` configuration section: defaults, environment variables, validation. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/svc/config/load.ts';

describe('grpc configuration', () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-grpc-config-'));
  after(() => rmSync(stateDir, { recursive: true, force: true }));
  const load = (env: Record<string, string> = {}, overrides: Record<string, unknown> = {}) => loadConfig({ env: { SVC_STATE_DIR: stateDir, ...env }, overrides }).config;

  test('gRPC is enabled on 127.0.0.1:9090 by default', () => {
    assert.deepEqual(load().grpc, { enabled: true, host: '127.0.0.1', port: 9090 });
  });

  test('SVC_GRPC_ENABLED, SVC_GRPC_HOST and SVC_GRPC_PORT set the section', () => {
    assert.deepEqual(load({ SVC_GRPC_ENABLED: 'false', SVC_GRPC_HOST: '0.0.0.0', SVC_GRPC_PORT: '0' }).grpc, { enabled: false, host: '0.0.0.0', port: 0 });
    assert.equal(load({ SVC_GRPC_ENABLED: '1' }).grpc.enabled, true);
  });

  test('a malformed value or an unknown key is refused with its name or path', () => {
    assert.throws(() => load({ SVC_GRPC_ENABLED: 'maybe' }), /SVC_GRPC_ENABLED must be true or false/);
    assert.throws(() => load({ SVC_GRPC_PORT: '-1' }), /SVC_GRPC_PORT/);
    assert.throws(() => load({}, { 'grpc.port': 70000 }), /\/grpc\/port/);
    assert.throws(() => load({}, { 'grpc.tls': true }), /\/grpc\/tls: unknown key/);
  });
});
