/**
 * The `svc execute`, `svc work-unit execute` and `svc manifest …` commands
 * against a real server (SQLite): the CLI is a thin adapter, so these check
 * flags, output and files rather than the domain again.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const run = promisify(execFile);
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('svc execute and svc manifest', () => {
  let s: TestServer;
  let dir: string;
  const svc = async (args: string[], key: string = KEYS.acmeWriter) => {
    const { stdout } = await run(process.execPath, ['bin/svc.mjs', ...args, '--json'], { env: { ...process.env, SVC_URL: s.url, SVC_API_KEY: key }, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  };

  before(async () => {
    s = await startTestServer();
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'));
  });
  after(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('execute stores a file and manifest rehydrate writes it back, whole and by range', async () => {
    const data = corpusFile('log-like', 200_000, 'cli');
    const file = path.join(dir, 'app.log');
    writeFileSync(file, data);
    const result = JSON.parse(await svc(['execute', '--kind', 'byte_object', '--file', file]));
    assert.equal(result.output.sha256, sha256(data));
    const out = path.join(dir, 'back.log');
    await svc(['manifest', 'rehydrate', result.manifest_id, '--out', out]);
    assert.deepEqual(readFileSync(out), data);
    const ranged = path.join(dir, 'range.log');
    const info = JSON.parse(await svc(['manifest', 'rehydrate', result.manifest_id, '--range', '10:19', '--out', ranged]));
    assert.equal(info.content_range, `bytes 10-19/${data.length}`);
    assert.deepEqual(readFileSync(ranged), data.subarray(10, 20));
  });

  test('work-unit execute runs a stored work unit', async () => {
    const file = path.join(dir, 'wu.bin');
    writeFileSync(file, corpusFile('random', 50_000, 'cli-wu'));
    const wu = JSON.parse(await svc(['work-unit', 'create', '--kind', 'byte_object', '--file', file]));
    const result = JSON.parse(await svc(['work-unit', 'execute', wu.work_unit_id]));
    assert.equal(result.work_unit_id, wu.work_unit_id);
    assert.match(result.manifest_id, /^mf_/);
  });

  test('a file above the old inline limit is streamed raw into the named object', async () => {
    const data = corpusFile('random', 9 * 1024 * 1024, 'cli-big');
    const file = path.join(dir, 'big.bin');
    writeFileSync(file, data);
    const result = JSON.parse(await svc(['execute', '--kind', 'byte_object', '--file', file, '--bucket', 'cli', '--key', 'big.bin']));
    assert.equal(result.output.sha256, sha256(data));
    assert.deepEqual([result.bucket, result.key, result.size], ['cli', 'big.bin', data.length]);
  });

  test('manifest list --redacted, explore and export --tenant print what the API returns', async () => {
    const listed = JSON.parse(await svc(['manifest', 'list', '--tenant', 'acme', '--redacted']));
    assert.ok(listed.manifests.length >= 2);
    assert.ok(listed.manifests.every((m: Record<string, unknown>) => !('logical_ref' in m)));
    const explored = JSON.parse(await svc(['manifest', 'explore', '--tenant', 'acme']));
    assert.ok(explored.by_kind.byte_object >= 2);
    const out = path.join(dir, 'export.json');
    const summary = JSON.parse(await svc(['manifest', 'export', '--tenant', 'acme', '--out', out], ADMIN_KEY));
    assert.equal(summary.manifests, JSON.parse(readFileSync(out, 'utf8')).manifests.length);
  });
});
