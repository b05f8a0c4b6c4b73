/**
 * `svc init` writes every setting; a configuration problem is one line with
 * its path and fix and exit code 2; the published JSON Schema matches the
 * definition and accepts what `svc init` writes (issue 10, set-up).
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import Ajv2020 from 'ajv/dist/2020.js';
import YAML from 'yaml';
import { CONFIG_SCHEMA_FILE, configJsonSchemaText } from '../../src/svc/config/json-schema.ts';
import { SvcConfig } from '../../src/svc/config/schema.ts';
import { runSvc } from '../helpers/cli.ts';

/** Every property path the configuration schema defines, e.g. `storage.s3.region`. */
function schemaPaths(schema: { properties?: Record<string, unknown> }, prefix = ''): string[] {
  return Object.entries(schema.properties ?? {}).flatMap(([key, sub]) => {
    const p = `${prefix}${key}`;
    const nested = (sub as { properties?: Record<string, unknown> }).properties;
    return nested ? [p, ...schemaPaths(sub as { properties: Record<string, unknown> }, `${p}.`)] : [p];
  });
}

function has(doc: unknown, dotted: string): boolean {
  let cur = doc as Record<string, unknown> | undefined;
  for (const k of dotted.split('.')) {
    if (cur === null || typeof cur !== 'object' || !(k in cur)) return false;
    cur = cur[k] as Record<string, unknown>;
  }
  return true;
}

describe('svc init and configuration errors', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-config-cli-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('svc init writes every key of the schema except the three without a default', async () => {
    const r = await runSvc(['init', '--state-dir', path.join(dir, 'init')]);
    assert.equal(r.status, 0, r.stderr);
    const doc = YAML.parse(await readFile(path.join(dir, 'init', 'config.yaml'), 'utf8')) as unknown;
    const noDefault = new Set(['storage.database_url', 'storage.s3.bucket', 'storage.s3.endpoint']);
    const missing = schemaPaths(SvcConfig as never).filter((p) => !noDefault.has(p) && !has(doc, p));
    assert.deepEqual(missing, []);
    for (const p of ['rollout', 'guardrail', 'storage.chunk_dir', 'storage.s3.region', 'reports.estimates']) assert.ok(has(doc, p), p);
  });

  it('what svc init writes validates against the published JSON Schema', async () => {
    const doc = YAML.parse(await readFile(path.join(dir, 'init', 'config.yaml'), 'utf8')) as unknown;
    const ajv = new Ajv2020.default({ strict: false, allErrors: true });
    const check = ajv.compile(JSON.parse(await readFile(CONFIG_SCHEMA_FILE, 'utf8')) as object);
    assert.equal(check(doc), true, JSON.stringify(check.errors));
    assert.equal(check({ server: { prot: 1 } }), false, 'unknown keys are refused by the schema too');
    assert.equal(check({ server: { port: 9000 } }), true, 'a partial file is valid: defaults fill the rest');
  });

  it('the committed JSON Schema is the one generated from the definition', async () => {
    assert.equal(await readFile(CONFIG_SCHEMA_FILE, 'utf8'), configJsonSchemaText(), 'regenerate: node src/svc/config/json-schema.ts --write');
  });

  it('an unknown key is one line naming the path and the known keys, exit 2', async () => {
    const file = path.join(dir, 'bad.yaml');
    await writeFile(file, 'server:\n  prot: 1\n');
    const r = await runSvc(['serve', '--config', file]);
    assert.equal(r.status, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /\/server\/prot: unknown key \(known keys here: host, port/);
    assert.doesNotMatch(r.stderr, /\bat \S+\.ts:\d+/, 'no stack trace');
  });

  it('a short token in SVC_API_KEYS_JSON is one line with the fix, exit 2, and the token is not echoed', async () => {
    const r = await runSvc(['serve', '--port', '0', '--grpc-port', '0'], {
      SVC_STATE_DIR: path.join(dir, 'short-token'),
      SVC_API_KEYS_JSON: JSON.stringify({ 'tiny-secret': { actor: 'a', roles: ['admin'] } }),
    });
    assert.equal(r.status, 2);
    assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
    assert.match(r.stderr, /entry #1: tokens must be at least 16 characters \(generate one with/);
    assert.doesNotMatch(r.stderr, /tiny-secret/);
  });
});
