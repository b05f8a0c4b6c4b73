/**
 * Issue 18, item 15: attr's /openapi.json describes every response with its
 * schema (200s, the readiness 503, 415 and 500 among the errors), lints clean
 * under Redocly's recommended rules, and real responses validate against the
 * schemas it declares.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startServiceProcess, type ServiceProcess } from '../../../src/attr/smoke/service-process.ts';
import { publishedValidator, REPO } from './run-bin.ts';

type Operation = { operationId?: string; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> };
type OpenApi = { paths: Record<string, Record<string, Operation>> };

let svc: ServiceProcess;
let doc: OpenApi;
const dir = mkdtempSync(path.join(os.tmpdir(), 'attr-openapi-'));

before(async () => {
  svc = await startServiceProcess();
  doc = (await (await fetch(`${svc.url}/openapi.json`)).json()) as OpenApi;
});
after(async () => {
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function schemaOf(p: string, method: string, status: number): object {
  const response = doc.paths[p]?.[method]?.responses[String(status)];
  assert.ok(response, `${method.toUpperCase()} ${p} declares ${status}`);
  const schema = Object.values(response.content ?? {})[0]?.schema;
  assert.ok(schema && typeof schema === 'object', `${method.toUpperCase()} ${p} ${status} has a schema`);
  return schema;
}

function validator(schema: object) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const { $id: _id, ...rest } = schema as { $id?: string };
  return ajv.compile(rest);
}

test('every operation declares a 200 with a schema, an operationId, and its error responses', () => {
  for (const [p, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      assert.ok(op.operationId, `${method} ${p} has an operationId`);
      assert.ok(op.responses['200'], `${method} ${p} declares 200`);
      assert.ok(op.responses['500'], `${method} ${p} declares 500`);
    }
  }
  schemaOf('/v1/attribute', 'post', 200);
  schemaOf('/v1/provider/attribute', 'post', 200);
  schemaOf('/readyz', 'get', 503);
  for (const status of [400, 401, 413, 415, 429, 500, 503]) schemaOf('/v1/attribute', 'post', status);
  schemaOf('/v1/provider/attribute', 'post', 502);
});

test('real responses validate against the schemas /openapi.json declares', async () => {
  const ready = await fetch(`${svc.url}/readyz`);
  const readyValid = validator(schemaOf('/readyz', 'get', ready.status));
  const readyBody = await ready.json();
  assert.ok(readyValid(readyBody), JSON.stringify(readyValid.errors));
  assert.deepEqual(publishedValidator('service/schemas/attr-readiness.v1.schema.json')(readyBody), [], 'and its published schema file');

  const ok = await svc.request('/v1/attribute', { auth: true, json: { prompt: 'How far do honeybees forage?', gross_revenue: '5.00' } });
  assert.equal(ok.status, 200);
  const okValid = validator(schemaOf('/v1/attribute', 'post', 200));
  assert.ok(okValid(await ok.json()), JSON.stringify(okValid.errors?.slice(0, 3)));

  const wrongType = await svc.request('/v1/attribute', { method: 'POST', auth: true, headers: { 'content-type': 'text/plain' }, body: 'x' });
  assert.equal(wrongType.status, 415);
  const errValid = validator(schemaOf('/v1/attribute', 'post', 415));
  assert.ok(errValid(await wrongType.json()), JSON.stringify(errValid.errors));

  const metrics = await svc.request('/v1/metrics', { auth: true });
  const metricsValid = validator(schemaOf('/v1/metrics', 'get', 200));
  assert.ok(metricsValid(await metrics.json()), JSON.stringify(metricsValid.errors));

  const manifest = await fetch(`${svc.url}/.well-known/attr.json`);
  const manifestValid = validator(schemaOf('/.well-known/attr.json', 'get', 200));
  assert.ok(manifestValid(await manifest.json()), JSON.stringify(manifestValid.errors));
});

test('redocly lint (recommended) reports no problems', { timeout: 120_000 }, async () => {
  const file = path.join(dir, 'openapi.json');
  writeFileSync(file, JSON.stringify(doc));
  const out = await new Promise<string>((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO, 'node_modules/@redocly/cli/bin/cli.js'), 'lint', file, '--config', path.join(REPO, 'redocly.yaml'), '--format', 'json'],
      { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }, maxBuffer: 64 * 1024 * 1024 },
      (_err, stdout) => resolve(stdout),
    );
  });
  const report = JSON.parse(out) as { problems: Array<{ ruleId: string; message: string; location?: Array<{ pointer?: string }> }> };
  assert.deepEqual(report.problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer ?? '?'}`), []);
});
