/**
 * The served OpenAPI document lints clean under Redocly's recommended rules
 * (zero errors, zero warnings; redocly.yaml says which rule is off and why).
 * Every operation gets operationId, summary, tag and its error responses from
 * src/svc/http/openapi-defaults.ts unless the route says them itself.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type TestServer, startTestServer } from '../helpers/server.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const REDOCLY = path.join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

describe('OpenAPI lint', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer({ engine: 'sqlite' });
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-openapi-'));
  });
  after(async () => {
    await s?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('redocly lint (recommended) reports no problems', { timeout: 120_000 }, async () => {
    const doc = (await (await fetch(`${s.url}/openapi.json`)).json()) as { paths: Record<string, Record<string, { operationId?: string }>> };
    const file = path.join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(doc));
    const out = await new Promise<string>((resolve) => {
      execFile(process.execPath, [REDOCLY, 'lint', file, '--config', path.join(ROOT, 'redocly.yaml'), '--format', 'json'], {
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        maxBuffer: 64 * 1024 * 1024,
      }, (_err, stdout) => resolve(stdout));
    });
    const report = JSON.parse(out) as { problems: Array<{ ruleId: string; message: string; location?: Array<{ pointer?: string }> }> };
    assert.deepEqual(report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`), []);
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((o) => o.operationId));
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });
});
