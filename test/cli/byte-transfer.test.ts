/**
 * The `svc` binary against a running server, moving bytes over the raw byte
 * path (decision 112): `svc execute --kind byte_object --file` streams files
 * of any size as raw bodies (past the old 16 MiB JSON limit too), `--bucket`
 * / `--key` store an object, `svc manifest rehydrate` streams to a file or
 * stdout; refusals and broken-off transfers exit 1 and leave no file. No
 * progress output when stderr is not a terminal.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import http from 'node:http';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { uploadStream } from '../../src/svc/cli/byte-transfer.ts';
import { decodeFooter, FOOTER_BYTES } from '../../src/svc/exact-bytes/body-footer.ts';
import { flipStoredByte } from '../helpers/chunk-damage.ts';
import { runSvc, SVC_BIN } from '../helpers/cli.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** What the CLI puts on the wire: `run` gets the URL of a recording endpoint that answers 200 with a JSON body. */
async function recordRequest(run: (url: string) => Promise<void>): Promise<{ headers: http.IncomingHttpHeaders; trailers: NodeJS.Dict<string>; bytes: Buffer }> {
  let seen: { headers: http.IncomingHttpHeaders; trailers: NodeJS.Dict<string>; bytes: Buffer } | undefined;
  const recorder = http.createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => {
      seen = { headers: req.headers, trailers: req.trailers, bytes: Buffer.concat(parts) };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ recorded: true }));
    });
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  try {
    await run(`http://127.0.0.1:${(recorder.address() as { port: number }).port}`);
  } finally {
    await new Promise((resolve) => recorder.close(resolve));
  }
  assert.ok(seen, 'the request arrived');
  return seen;
}

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

  test('several files in one run: each stored under its file name, results in order, and rehydrated together into --out-dir', { timeout: 120_000 }, async () => {
    const sub = mkdtempSync(path.join(dir, 'batch-'));
    const datas = [corpusFile('random', 3 * 1024 * 1024 + 7, 'cli-batch-a'), corpusFile('log-like', 400_000, 'cli-batch-b'), corpusFile('json', 90_000, 'cli-batch-c')];
    const files = datas.map((d, i) => {
      const f = path.join(sub, `part-${i}.bin`);
      writeFileSync(f, d);
      return f;
    });
    const r = await svc(['execute', '--kind', 'byte_object', '--bucket', 'batch', '--jobs', '2', ...files.flatMap((f) => ['--file', f])]);
    assert.equal(r.status, 0, r.stderr);
    const results = JSON.parse(r.stdout) as Array<{ file: string; result: any }>;
    assert.deepEqual(results.map((x) => x.file), files, 'in the order given');
    for (const [i, x] of results.entries()) {
      assert.deepEqual([x.result.bucket, x.result.key, x.result.size], ['batch', `part-${i}.bin`, datas[i]!.length]);
      const got = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeWriter, body: { bucket: 'batch', key: `part-${i}.bin` } });
      assert.ok(Buffer.from(await got.arrayBuffer()).equals(datas[i]!));
    }
    const ids = results.map((x) => x.result.manifest_id as string);
    const outDir = path.join(sub, 'restored');
    const back = await svc(['manifest', 'rehydrate', ...ids, '--out-dir', outDir]);
    assert.equal(back.status, 0, back.stderr);
    assert.deepEqual((JSON.parse(back.stdout) as any[]).map((x) => [x.manifest_id, x.bytes]), ids.map((id, i) => [id, datas[i]!.length]));
    for (const [i, id] of ids.entries()) assert.ok(readFileSync(path.join(outDir, id)).equals(datas[i]!), 'bit for bit');
    assert.deepEqual(readdirSync(outDir).sort(), [...ids].sort(), 'no temporary file left');
  });

  test('a batch attempts every file: one that fails does not stop the others, and the run exits 1', async () => {
    const sub = mkdtempSync(path.join(dir, 'batch-fail-'));
    const good = [path.join(sub, 'one.bin'), path.join(sub, 'two.bin')];
    writeFileSync(good[0]!, corpusFile('random', 50_000, 'cli-batch-fail-1'));
    writeFileSync(good[1]!, corpusFile('random', 60_000, 'cli-batch-fail-2'));
    const unreadable = path.join(sub, 'a-directory');
    mkdirSync(unreadable);
    const r = await svc(['execute', '--kind', 'byte_object', '--bucket', 'batchfail', '--file', good[0]!, '--file', unreadable, '--file', good[1]!]);
    assert.equal(r.status, 1);
    const results = JSON.parse(r.stdout) as Array<{ file: string; result?: any; error?: any }>;
    assert.equal(results[0]!.result.key, 'one.bin');
    assert.match(results[1]!.error.error.message, /EISDIR/);
    assert.equal(results[2]!.result.key, 'two.bin', 'the file after the failure was stored');

    const ids = [results[0]!.result.manifest_id as string, 'mf_doesnotexist', results[2]!.result.manifest_id as string];
    const outDir = path.join(sub, 'out');
    const back = await svc(['manifest', 'rehydrate', ...ids, '--out-dir', outDir]);
    assert.equal(back.status, 1);
    const restored = JSON.parse(back.stdout) as any[];
    assert.equal(restored[1].error.error.code, 'manifest_not_found');
    assert.deepEqual(readdirSync(outDir).sort(), [ids[0], ids[2]].sort(), 'the others were written, nothing for the missing one');
  });

  test('batch usage errors exit 2 before anything is sent', async () => {
    const sub = mkdtempSync(path.join(dir, 'batch-usage-'));
    const a = path.join(sub, 'x', 'same.bin');
    const b = path.join(sub, 'y', 'same.bin');
    mkdirSync(path.dirname(a));
    mkdirSync(path.dirname(b));
    writeFileSync(a, 'a');
    writeFileSync(b, 'b');
    const listUsage = async () => {
      const res = await s.call('POST', '/v1/s3/objects/list', { key: KEYS.acmeWriter, body: { bucket: 'usage' } });
      assert.equal(res.status, 200);
      return ((await res.json()) as { objects: unknown[] }).objects;
    };
    const clash = await runSvc(['execute', '--kind', 'byte_object', '--bucket', 'usage', '--file', a, '--file', b], env());
    assert.equal(clash.status, 2);
    assert.match(clash.stderr, /would both be stored as s3:\/\/usage\/same\.bin/);
    const keyed = await runSvc(['execute', '--kind', 'byte_object', '--key', 'k', '--file', a, '--file', b], env());
    assert.equal(keyed.status, 2);
    assert.match(keyed.stderr, /--key and --logical-ref name one object/);
    const missing = await runSvc(['execute', '--kind', 'byte_object', '--file', a, '--file', path.join(sub, 'absent')], env());
    assert.equal(missing.status, 2);
    assert.deepEqual(await listUsage(), [], 'nothing stored');
    const noDir = await runSvc(['manifest', 'rehydrate', 'mf_a', 'mf_b'], env());
    assert.equal(noDir.status, 2);
    assert.match(noDir.stderr, /--out-dir/);
    const escape = await runSvc(['manifest', 'rehydrate', '../x', '--out-dir', sub], env());
    assert.equal(escape.status, 2);
    assert.match(escape.stderr, /not a manifest id/);
    const jobs = await runSvc(['manifest', 'rehydrate', 'mf_a', '--out-dir', sub, '--jobs', '0'], env());
    assert.equal(jobs.status, 2);
  });

  test('execute declares the length and SHA-256 up front, in headers every proxy forwards (no trailer)', async () => {
    // A recording endpoint in place of the server: what the CLI puts on the wire (decision 194: request trailers
    // are dropped by common proxies, nginx among them, so the CLI does not rely on them).
    const data = corpusFile('log-like', 3 * 1024 * 1024 + 11, 'cli-raw-headers');
    const file = path.join(dir, 'declared.log');
    writeFileSync(file, data);
    const seen = await recordRequest(async (url) => {
      const r = await runSvc(['--json', 'execute', '--kind', 'byte_object', '--file', file], { SVC_URL: url, SVC_API_KEY: KEYS.acmeWriter });
      assert.equal(r.status, 0, r.stderr);
    });
    assert.equal(seen.headers['content-length'], String(data.length));
    assert.equal(seen.headers['transfer-encoding'], undefined);
    assert.equal(seen.headers['x-svc-content-sha256'], sha256(data));
    assert.equal(seen.headers.trailer, undefined);
    assert.deepEqual(seen.trailers, {});
    assert.ok(seen.bytes.equals(data));
  });

  test('--file - streams standard input (length unknown) with a footer, as an execute or an object put; rehydrate gives it back', { timeout: 120_000 }, async () => {
    const data = Buffer.concat([corpusFile('log-like', 5 * 1024 * 1024 + 1, 'cli-stdin-a'), corpusFile('random', 1024 * 1024, 'cli-stdin-b')]);
    const r = await runSvc(['--json', 'execute', '--kind', 'byte_object', '--file', '-', '--logical-ref', 's3://pipes/dump.bin'], env(), data);
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, '', 'no progress output when stderr is not a terminal');
    const result = JSON.parse(r.stdout);
    assert.deepEqual([result.output.sha256, result.details.bytes_in], [sha256(data), data.length]);
    const wu = (await (await s.call('GET', `/v1/work-units/${result.work_unit_id}`)).json()) as any;
    assert.deepEqual([wu.logical_ref, wu.payload.size, wu.payload.sha256], ['s3://pipes/dump.bin', data.length, sha256(data)]);
    const out = path.join(dir, 'from-stdin.bin');
    const back = await svc(['manifest', 'rehydrate', result.manifest_id, '--out', out]);
    assert.equal(back.status, 0, back.stderr);
    assert.ok(readFileSync(out).equals(data), 'bit for bit');

    const small = corpusFile('json', 1000, 'cli-stdin-object');
    const put = await runSvc(['--json', 'execute', '--kind', 'byte_object', '--file', '-', '--bucket', 'cli', '--key', 'piped.json'], env(), small);
    assert.equal(put.status, 0, put.stderr);
    assert.deepEqual([JSON.parse(put.stdout).size, JSON.parse(put.stdout).etag], [small.length, `"${sha256(small)}"`]);
    const empty = await runSvc(['--json', 'execute', '--kind', 'byte_object', '--file', '-', '--logical-ref', 's3://pipes/empty'], env(), new Uint8Array(0));
    assert.equal(empty.status, 0, empty.stderr);
    assert.equal(JSON.parse(empty.stdout).details.bytes_in, 0);
  });

  test('--file - needs a name for what it reads, is one object per run, and exits 1 on a refusal', async () => {
    const unnamed = await runSvc(['execute', '--kind', 'byte_object', '--file', '-'], env(), 'x');
    assert.notEqual(unnamed.status, 0);
    assert.match(unnamed.stderr, /--logical-ref/);
    const bucketOnly = await runSvc(['execute', '--kind', 'byte_object', '--file', '-', '--bucket', 'cli', '--logical-ref', 's3://x/y'], env(), 'x');
    assert.notEqual(bucketOnly.status, 0, 'an object from standard input needs its --key (its file name would be "-")');
    assert.match(bucketOnly.stderr, /--key/);
    const batch = await runSvc(['execute', '--kind', 'byte_object', '--file', '-', '--file', path.join(dir, 'x')], env(), 'x');
    assert.notEqual(batch.status, 0);
    assert.match(batch.stderr, /standard input/);
    // Refused while standard input is still being sent (larger than the socket buffers): exit 1 with the server's error.
    const refused = await runSvc(['execute', '--kind', 'byte_object', '--file', '-', '--logical-ref', 's3://pipes/denied', '--tenant', 'globex'], env(), corpusFile('random', 20 * 1024 * 1024, 'cli-stdin-denied'));
    assert.equal(refused.status, 1, refused.stderr);
    assert.match(refused.stderr, /tenant_forbidden/);
  });

  test('a standard-input upload whose input fails part way rejects with that error and cuts the request off', async () => {
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield corpusFile('random', 256 * 1024, 'cli-stdin-failing');
      throw new Error('input read failed');
    }
    // The request must end at once, without a footer: left open, it would hold the connection (and the CLI) until a timeout.
    let cutOff!: () => void;
    const ended = new Promise<void>((resolve) => (cutOff = resolve));
    const server = http.createServer((req) => {
      req.on('data', () => undefined);
      req.on('close', () => req.complete || cutOff());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = { baseUrl: `http://127.0.0.1:${(server.address() as { port: number }).port}`, apiKey: KEYS.acmeWriter };
      await assert.rejects(uploadStream(endpoint, 'PUT', '/v1/s3/objects?bucket=cli&key=failed-pipe', failing()), /input read failed/);
      const timeout = new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 2000).unref());
      assert.equal(await Promise.race([ended.then(() => 'cut off'), timeout]), 'cut off');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  test('--file - puts chunked bytes and a footer on the wire: no Content-Length, no trailer, no header digest', async () => {
    const data = corpusFile('log-like', 2 * 1024 * 1024 + 5, 'cli-stdin-wire');
    const seen = await recordRequest(async (url) => {
      const r = await runSvc(['--json', 'execute', '--kind', 'byte_object', '--file', '-', '--logical-ref', 's3://pipes/wire'], { SVC_URL: url, SVC_API_KEY: KEYS.acmeWriter }, data);
      assert.equal(r.status, 0, r.stderr);
    });
    assert.deepEqual([seen.headers['content-length'], seen.headers['transfer-encoding'], seen.headers['x-svc-content-footer']], [undefined, 'chunked', 'sha256']);
    assert.deepEqual([seen.headers['x-svc-content-sha256'], seen.headers.trailer, seen.trailers], [undefined, undefined, {}]);
    assert.ok(seen.bytes.subarray(0, data.length).equals(data));
    assert.equal(seen.bytes.length, data.length + FOOTER_BYTES);
    assert.deepEqual(decodeFooter(seen.bytes.subarray(data.length)), { length: data.length, sha256: sha256(data) });
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
    // Port 0 and the address from the banner: no window in which another test can take a port picked in advance.
    const server = spawn(process.execPath, [SVC_BIN, 'serve', '--port', '0'], {
      env: { ...process.env, SVC_STATE_DIR: state, SVC_LOCAL_API_KEY: ADMIN_KEY, SVC_LOG_LEVEL: 'warn', SVC_GRPC_ENABLED: 'false', SVC_SCHEDULER_TICK_MS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        server.stdout!.on('data', (d: Buffer) => {
          out += d.toString('utf8');
          const m = /listening on (http:\/\/\S+)/.exec(out);
          if (m) resolve(m[1]!);
        });
        server.stderr!.on('data', (d: Buffer) => (out += d.toString('utf8')));
        server.on('exit', (code) => reject(new Error(`svc serve exited (${code}) during start-up: ${out}`)));
      });
      // Larger than the socket buffers: the server answers while the CLI is still sending.
      const file = path.join(dir, 'refused-big.bin');
      writeFileSync(file, corpusFile('random', 20 * 1024 * 1024, 'cli-raw-refused-big'));
      const started = performance.now();
      const r = await runSvc(['execute', '--kind', 'byte_object', '--file', file, '--bucket', 'B', '--key', 'k'], { SVC_URL: url, SVC_API_KEY: ADMIN_KEY });
      const seconds = (performance.now() - started) / 1000;
      assert.equal(r.status, 1, r.stderr);
      assert.match(r.stderr, /invalid_request/);
      // The cut-off request's socket, left open, kept the CLI alive until the server's 72 s keep-alive timeout.
      assert.ok(seconds < 30, `exited after ${seconds.toFixed(1)} s`);
    } finally {
      if (server.exitCode === null && server.signalCode === null) {
        const exited = new Promise((resolve) => server.once('exit', resolve));
        server.kill('SIGTERM');
        await exited;
      }
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
