/**
 * The `svc` binary against a running server, moving bytes over the raw byte
 * path (decision 112): `svc execute --kind byte_object --file` streams files
 * of any size as raw bodies (past the old 16 MiB JSON limit too), `--bucket`
 * / `--key` store an object, `svc manifest rehydrate` streams to a file or
 * stdout; refusals and broken-off transfers exit 1 and leave no file. No
 * progress output when stderr is not a terminal.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { flipStoredByte } from '../helpers/chunk-damage.ts';
import { runSvc } from '../helpers/cli.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { svcProcess } from '../helpers/svc-process.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('svc moves bytes over the raw byte path', () => {
  let s: TestServer;
  let dir: string;
  const env = (key: string = KEYS.acmeWriter) => ({ SVC_URL: s.url, SVC_API_KEY: key });
  const svc = async (args: string[], key?: string) => runSvc(['--json', ...args], env(key));

  before(async () => {
    s = await startTestServer({ engine: 'sqlite' });
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-bytes-'));
  });
  after(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('execute streams a file larger than the JSON body limit and rehydrate writes it back bit for bit', { timeout: 120_000 }, async () => {
    const data = corpusFile('random', 20 * 1024 * 1024 + 3, 'cli-raw-big');
    const file = path.join(dir, 'big.bin');
    writeFileSync(file, data);
    const r = await svc(['execute', '--kind', 'byte_object', '--file', file, '--meta', 'owner=alice', '--tenant', 'acme']);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '', 'no progress output when stderr is not a terminal');
    const result = JSON.parse(r.stdout);
    assert.equal(result.output.sha256, sha256(data));
    assert.equal(result.details.bytes_in, data.length);
    const wu = (await (await s.call('GET', `/v1/work-units/${result.work_unit_id}`)).json()) as any;
    assert.equal(wu.logical_ref, `file://${file}`);
    assert.equal(wu.metadata.owner, 'alice');

    const out = path.join(dir, 'back.bin');
    const back = await svc(['manifest', 'rehydrate', result.manifest_id, '--out', out]);
    assert.equal(back.status, 0, back.stderr);
    assert.equal(JSON.parse(back.stdout).bytes, data.length);
    assert.ok(readFileSync(out).equals(data), 'bit for bit');
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes('partial')), [], 'no temporary file left');
  });

  test('rehydrate to stdout, and a range', async () => {
    const data = corpusFile('log-like', 200_000, 'cli-raw-stdout');
    const file = path.join(dir, 'small.log');
    writeFileSync(file, data);
    const result = JSON.parse((await svc(['execute', '--kind', 'byte_object', '--file', file])).stdout);
    const child = await import('node:child_process');
    const { SVC_BIN } = await import('../helpers/cli.ts');
    const bytes = await new Promise<Buffer>((resolve, reject) => {
      const p = child.spawn(process.execPath, [SVC_BIN, 'manifest', 'rehydrate', result.manifest_id], { env: { ...process.env, ...env() } });
      const parts: Buffer[] = [];
      p.stdout.on('data', (d: Buffer) => parts.push(d));
      p.on('error', reject);
      p.on('close', (code) => (code === 0 ? resolve(Buffer.concat(parts)) : reject(new Error(`exit ${code}`))));
    });
    assert.ok(bytes.equals(data));
    const out = path.join(dir, 'range.bin');
    const ranged = await svc(['manifest', 'rehydrate', result.manifest_id, '--range', '100:199', '--out', out]);
    assert.equal(ranged.status, 0, ranged.stderr);
    assert.equal(JSON.parse(ranged.stdout).content_range, `bytes 100-199/${data.length}`);
    assert.ok(readFileSync(out).equals(data.subarray(100, 200)));
  });

  test('--bucket/--key store an object through the raw object put', async () => {
    const data = corpusFile('json', 300_000, 'cli-raw-object');
    const file = path.join(dir, 'doc.json');
    writeFileSync(file, data);
    const r = await svc(['execute', '--kind', 'byte_object', '--file', file, '--bucket', 'cli', '--key', 'docs/doc.json']);
    assert.equal(r.status, 0, r.stderr);
    const put = JSON.parse(r.stdout);
    assert.deepEqual([put.bucket, put.key, put.size], ['cli', 'docs/doc.json', data.length]);
    const got = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeWriter, body: { bucket: 'cli', key: 'docs/doc.json' } });
    assert.ok(Buffer.from(await got.arrayBuffer()).equals(data));
  });

  test('a refusal exits 1 with the server error', async () => {
    const file = path.join(dir, 'denied.bin');
    writeFileSync(file, corpusFile('random', 100_000, 'cli-raw-denied'));
    const r = await runSvc(['execute', '--kind', 'byte_object', '--file', file, '--tenant', 'globex'], env());
    assert.equal(r.status, 1);
    assert.match(r.stderr, /tenant_forbidden/);
  });

  test('a refusal while a large body is still being sent exits at once (svc serve as users run it)', { timeout: 120_000 }, async () => {
    const state = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-refusal-'));
    const server = await svcProcess({ SVC_STATE_DIR: state, SVC_LOCAL_API_KEY: ADMIN_KEY, SVC_LOG_LEVEL: 'warn' });
    try {
      await server.start();
      // Larger than the socket buffers: the server answers while the CLI is still sending.
      const file = path.join(dir, 'refused-big.bin');
      writeFileSync(file, corpusFile('random', 20 * 1024 * 1024, 'cli-raw-refused-big'));
      const started = performance.now();
      const r = await runSvc(['execute', '--kind', 'byte_object', '--file', file, '--bucket', 'B', '--key', 'k'], { SVC_URL: server.url, SVC_API_KEY: ADMIN_KEY });
      const seconds = (performance.now() - started) / 1000;
      assert.equal(r.status, 1);
      assert.match(r.stderr, /invalid_request/);
      // The cut-off request's socket, left open, kept the CLI alive until the server's 72 s keep-alive timeout.
      assert.ok(seconds < 30, `exited after ${seconds.toFixed(1)} s`);
    } finally {
      await server.kill('SIGTERM');
      rmSync(state, { recursive: true, force: true });
    }
  });

  test('a rehydration that breaks off mid-stream exits 1 and leaves no file', async () => {
    const data = corpusFile('random', 2 * 1024 * 1024, 'cli-raw-corrupt');
    const file = path.join(dir, 'victim.bin');
    writeFileSync(file, data);
    const result = JSON.parse((await svc(['execute', '--kind', 'byte_object', '--file', file])).stdout);
    const manifest = (await (await s.call('GET', `/v1/manifests/${result.manifest_id}`)).json()) as any;
    assert.ok(manifest.chunks.length > 2);
    // The last chunk: the first ones are already on the wire when it fails.
    const victim = manifest.chunks[manifest.chunks.length - 1];
    await flipStoredByte(s.app.objects.chunkBackend, { chunk_scope: manifest.chunk_scope, id: victim.id, codec: victim.codec }, 10);
    const out = path.join(dir, 'never.bin');
    const r = await runSvc(['manifest', 'rehydrate', result.manifest_id, '--out', out], env(ADMIN_KEY));
    assert.equal(r.status, 1, r.stderr);
    assert.match(r.stderr, /rehydration_failed/);
    assert.equal(existsSync(out), false);
    assert.deepEqual(readdirSync(dir).filter((f) => f.includes('partial')), []);
  });
});
