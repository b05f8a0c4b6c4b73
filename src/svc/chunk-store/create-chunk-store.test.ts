import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../config/load.ts';
import { SvcError } from '../errors.ts';
import { createChunkStore } from './create-chunk-store.ts';
import { FsChunkStore } from './fs-chunk-store.ts';
import { credentialsFromEnv } from './s3-client.ts';
import { S3ChunkStore } from './s3-chunk-store.ts';

function tempStateDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-chunk-backend-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('without configuration chunks live on the filesystem under <state_dir>/chunks', async (t) => {
  const stateDir = tempStateDir(t);
  const { config } = loadConfig({ env: { SVC_STATE_DIR: stateDir } });
  assert.equal(config.storage.chunk_backend, 'filesystem');
  const backend = await createChunkStore(config, stateDir);
  assert.equal(backend.kind, 'filesystem');
  assert.ok(backend.store instanceof FsChunkStore);
  assert.equal(backend.location, path.join(stateDir, 'chunks'));
  await backend.probe();
  await backend.close();
});

test('SVC_CHUNK_BACKEND=s3 with a bucket builds the S3 store with the defaults for prefix and region', async (t) => {
  const stateDir = tempStateDir(t);
  const { config } = loadConfig({ env: { SVC_STATE_DIR: stateDir, SVC_CHUNK_BACKEND: 's3', SVC_S3_BUCKET: 'svc-chunks' } });
  assert.deepEqual(config.storage.s3, { bucket: 'svc-chunks', prefix: 'chunks', region: 'us-east-1', force_path_style: false });
  const backend = await createChunkStore(config, stateDir, { env: {} });
  try {
    assert.equal(backend.kind, 's3');
    assert.ok(backend.store instanceof S3ChunkStore);
    assert.equal(backend.location, 's3://svc-chunks/chunks');
  } finally {
    await backend.close();
  }
});

test('every S3 key can be set from the environment', (t) => {
  const stateDir = tempStateDir(t);
  const { config } = loadConfig({
    env: {
      SVC_STATE_DIR: stateDir,
      SVC_CHUNK_BACKEND: 's3',
      SVC_S3_BUCKET: 'team-bucket',
      SVC_S3_PREFIX: 'svc/prod',
      SVC_S3_REGION: 'eu-central-1',
      SVC_S3_ENDPOINT: 'https://minio.internal:9000',
      SVC_S3_FORCE_PATH_STYLE: 'true',
    },
  });
  assert.equal(config.storage.chunk_backend, 's3');
  assert.deepEqual(config.storage.s3, { bucket: 'team-bucket', prefix: 'svc/prod', region: 'eu-central-1', endpoint: 'https://minio.internal:9000', force_path_style: true });
});

test('the s3 backend without a bucket is refused at load, naming the key and its variable', (t) => {
  const stateDir = tempStateDir(t);
  assert.throws(
    () => loadConfig({ env: { SVC_STATE_DIR: stateDir, SVC_CHUNK_BACKEND: 's3', SVC_S3_REGION: 'eu-west-1' } }),
    (err: unknown) => err instanceof SvcError && err.code === 'invalid_request' && /\/storage\/s3\/bucket: required when storage\.chunk_backend is s3 \(env SVC_S3_BUCKET\)/.test(err.message),
  );
});

test('an unknown backend, an endpoint that is not a URL and a non-boolean path-style flag are refused with their paths', (t) => {
  const stateDir = tempStateDir(t);
  assert.throws(() => loadConfig({ env: { SVC_STATE_DIR: stateDir, SVC_CHUNK_BACKEND: 'nfs' } }), /\/storage\/chunk_backend/);
  assert.throws(() => loadConfig({ env: { SVC_STATE_DIR: stateDir, SVC_S3_BUCKET: 'b-1', SVC_S3_ENDPOINT: 'minio:9000' } }), /\/storage\/s3\/endpoint/);
  assert.throws(() => loadConfig({ env: { SVC_STATE_DIR: stateDir, SVC_S3_FORCE_PATH_STYLE: 'yes' } }), /SVC_S3_FORCE_PATH_STYLE must be true or false/);
});

test('a configuration built by hand with the s3 backend and no bucket is refused by the factory too', async (t) => {
  const stateDir = tempStateDir(t);
  const { config } = loadConfig({ env: { SVC_STATE_DIR: stateDir } });
  const handBuilt = { ...config, storage: { ...config.storage, chunk_backend: 's3' as const } };
  await assert.rejects(createChunkStore(handBuilt, stateDir), /storage\.s3\.bucket is required/);
});

test('AWS credentials come from the standard variables of the given environment, else from the SDK default chain', () => {
  assert.deepEqual(credentialsFromEnv({ AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret' }), { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' });
  assert.deepEqual(credentialsFromEnv({ AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret', AWS_SESSION_TOKEN: 'token' }), {
    accessKeyId: 'AKIDEXAMPLE',
    secretAccessKey: 'secret',
    sessionToken: 'token',
  });
  assert.equal(credentialsFromEnv({ AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE' }), undefined, 'half a key pair defers to the default chain');
  assert.equal(credentialsFromEnv({}), undefined);
});
