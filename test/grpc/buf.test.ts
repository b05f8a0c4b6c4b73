/**
 * The real `buf` (npm @bufbuild/buf, exact pin) checks the protobuf API:
 * `buf lint` (STANDARD, buf.yaml) and `buf breaking` (FILE rules) against the
 * released copy under proto-released/, which a release updates on purpose
 * (docs/grpc.md). A removed RPC (WorkUnitService.Get) is caught, so the check can fail.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '../..');
const BUF = path.join(ROOT, 'node_modules', '.bin', 'buf');

function buf(args: string[], cwd = ROOT): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BUF, ...args], { cwd, env: { ...process.env, BUF_CACHE_DIR: path.join(os.tmpdir(), 'svc-buf-cache') } }, (err, stdout, stderr) => {
      resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, out: `${stdout}${stderr}` });
    });
  });
}

describe('buf', { timeout: 120_000 }, () => {
  it('buf lint (STANDARD) is clean', async () => {
    const r = await buf(['lint']);
    assert.equal(r.code, 0, r.out);
  });

  it('buf breaking against the released proto is clean', async () => {
    const r = await buf(['breaking', 'proto', '--against', 'proto-released']);
    assert.equal(r.code, 0, r.out);
  });

  it('buf breaking catches a removed RPC', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-buf-'));
    try {
      await cp(path.join(ROOT, 'proto'), path.join(dir, 'proto'), { recursive: true });
      await cp(path.join(ROOT, 'proto-released'), path.join(dir, 'proto-released'), { recursive: true });
      await cp(path.join(ROOT, 'buf.yaml'), path.join(dir, 'buf.yaml'));
      const file = path.join(dir, 'proto', 'svc', 'v1', 'svc.proto');
      const text = await readFile(file, 'utf8');
      const broken = text.replace(/\n\s*rpc Get\(WorkUnitServiceGetRequest\) returns \(WorkUnitServiceGetResponse\);/, '\n');
      assert.notEqual(broken, text, 'the test removes WorkUnitService.Get');
      await writeFile(file, broken);
      const r = await buf(['breaking', 'proto', '--against', 'proto-released'], dir);
      assert.notEqual(r.code, 0);
      assert.match(r.out, /"Get"/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
