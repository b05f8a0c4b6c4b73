/**
 * Issue 10, defect 7: a stored `prompt_request` work unit executes through
 * the AI gateway like any other unit — REST execute by id and inline, gRPC
 * Execute, `svc execute --kind prompt_request --file p.json` and `svc
 * work-unit execute <id>`: one domain function, the unit's own id on the
 * plan, the compute manifest and the ledger events.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { fromStruct } from '../../src/svc/grpc/mapping/struct.ts';
import { KEYS } from '../helpers/server.ts';
import { type GrpcTestServer, startGrpcTestServer, unary, withKey } from '../grpc/support/grpc-test-server.ts';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';

type Json = Record<string, any>;
const runFile = promisify(execFile);
const writer = { key: KEYS.acmeWriter };

describe('stored AI work units execute through the gateway', () => {
  let mock: MockOpenAI;
  let s: GrpcTestServer;
  let dir: string;
  const createPrompt = async (content: string, extra: Json = {}) => {
    const r = await s.http.call('POST', '/v1/work-units', { ...writer, body: { kind: 'prompt_request', logical_ref: `prompt://tests/${encodeURIComponent(content)}`, payload: { model: 'mock-small', messages: [{ role: 'user', content }] }, ...extra } });
    assert.equal(r.status, 201, await r.clone().text());
    return (await r.json()) as Json;
  };
  before(async () => {
    mock = await startMockOpenAI();
    const providers = [{ name: 'mock', base_url: mock.url, models: [{ id: 'mock-small', size_class: 'small' }, { id: 'mock-large', size_class: 'large' }, { id: 'mock-embed', size_class: 'small', capabilities: ['embeddings'] }] }];
    s = await startGrpcTestServer({ env: { SVC_PROVIDERS_JSON: JSON.stringify(providers) } });
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-ai-exec-'));
  });
  after(async () => {
    await s?.close();
    await mock?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('POST /v1/work-units/{id}/execute runs the stored prompt: answer, manifest and plan belong to that unit', async () => {
    const wu = await createPrompt('What is a stored prompt?');
    const r = await s.http.call('POST', `/v1/work-units/${wu.work_unit_id}/execute`, { ...writer, body: {} });
    const result = (await r.json()) as Json;
    assert.equal(r.status, 200, JSON.stringify(result));
    assert.equal(result.work_unit_id, wu.work_unit_id);
    assert.equal(r.headers.get('x-svc-work-unit-id'), wu.work_unit_id);
    assert.equal(r.headers.get('x-svc-route'), 'mock/mock-small');
    assert.match(result.output.response.choices[0].message.content, /mock-small answers/);
    assert.match(result.output.sha256, /^[0-9a-f]{64}$/);
    assert.deepEqual([result.accepted, result.contract, result.details.cache, result.details.bytes_stored], [true, 'exact_bytes', 'miss', 0]);
    const after = (await (await s.http.call('GET', `/v1/work-units/${wu.work_unit_id}`, writer)).json()) as Json;
    assert.deepEqual([after.state, after.manifest_id, after.last_plan_id, after.logical_ref], ['executed', result.manifest_id, result.plan_id, wu.logical_ref]);
    const manifest = (await (await s.http.call('GET', `/v1/manifests/${result.manifest_id}`, writer)).json()) as Json;
    assert.deepEqual([manifest.work_unit_id, manifest.kind, manifest.result.output_sha256], [wu.work_unit_id, 'ai_chat_completion', result.output.sha256]);
    const events = await s.http.app.store.ledger.query({ tenant: 'acme', limit: 10_000 });
    const types = events.filter((e) => e.work_unit_id === wu.work_unit_id).map((e) => e.type);
    for (const t of ['work_unit.created', 'plan.created', 'manifest.written']) assert.ok(types.includes(t), `${t} in ${types.join(',')}`);
    const listed = (await (await s.http.call('GET', '/v1/work-units?kind=prompt_request', writer)).json()) as Json;
    assert.equal(listed.work_units.filter((w: Json) => w.work_unit_id === wu.work_unit_id).length, 1, 'no second work unit was created');
    const again = await s.http.call('POST', `/v1/work-units/${wu.work_unit_id}/execute`, { ...writer, body: {} });
    assert.equal(again.status, 409);
  });

  test('without a model the stored prompt is routed by auto; the execute options set the mode', async () => {
    const r0 = await s.http.call('POST', '/v1/work-units', { ...writer, body: { kind: 'prompt_request', logical_ref: 'prompt://tests/auto', payload: { messages: [{ role: 'user', content: 'Classify the sentiment of this review: great product' }] } } });
    const wu = (await r0.json()) as Json;
    const r = await s.http.call('POST', `/v1/work-units/${wu.work_unit_id}/execute`, { ...writer, body: { mode: 'observe' } });
    const result = (await r.json()) as Json;
    assert.equal(r.status, 200, JSON.stringify(result));
    assert.deepEqual([result.mode, result.details.route], ['observe', 'mock/mock-small']);
    const bad = await createPrompt('transforms?');
    const refused = await s.http.call('POST', `/v1/work-units/${bad.work_unit_id}/execute`, { ...writer, body: { transforms: ['semantic_summary'] } });
    assert.deepEqual([refused.status, ((await refused.json()) as Json).error.code], [400, 'invalid_work_unit']);
  });

  test('inline execute of a prompt_request stores the unit and answers; the same prompt again is an exact hit', async () => {
    const body = { kind: 'prompt_request', logical_ref: 'prompt://tests/inline', payload: { model: 'mock-small', messages: [{ role: 'user', content: 'Inline prompt' }] } };
    const first = (await (await s.http.call('POST', '/v1/work-units/execute', { ...writer, body })).json()) as Json;
    assert.equal(first.details?.cache, 'miss', JSON.stringify(first));
    const stored = (await (await s.http.call('GET', `/v1/work-units/${first.work_unit_id}`, writer)).json()) as Json;
    assert.deepEqual([stored.kind, stored.state, stored.logical_ref], ['prompt_request', 'executed', 'prompt://tests/inline']);
    const second = (await (await s.http.call('POST', '/v1/work-units/execute', { ...writer, body })).json()) as Json;
    assert.equal(second.details.cache, 'exact_hit');
    assert.notEqual(second.work_unit_id, first.work_unit_id);
    assert.deepEqual(second.output.response.choices, first.output.response.choices);
  });

  test('embedding_request units execute too; another tenant cannot execute a unit', async () => {
    const r0 = await s.http.call('POST', '/v1/work-units', { ...writer, body: { kind: 'embedding_request', logical_ref: 'emb://tests/1', payload: { model: 'mock-embed', input: ['alpha'] } } });
    const wu = (await r0.json()) as Json;
    const foreign = await s.http.call('POST', `/v1/work-units/${wu.work_unit_id}/execute`, { key: KEYS.globexWriter, body: {} });
    assert.equal(foreign.status, 404);
    const r = await s.http.call('POST', `/v1/work-units/${wu.work_unit_id}/execute`, { ...writer, body: {} });
    const result = (await r.json()) as Json;
    assert.equal(r.status, 200, JSON.stringify(result));
    assert.ok(result.output.response.data[0].embedding.length > 0);
  });

  test('gRPC Execute runs a stored prompt_request through the gateway', async () => {
    const wu = await createPrompt('gRPC prompt');
    const result = (await unary<Json, Json>(s.clients.workUnits, 'Execute', { work_unit_id: wu.work_unit_id }, withKey(KEYS.acmeWriter))).response.result;
    assert.equal(result.work_unit_id, wu.work_unit_id);
    assert.equal(result.details.cache, 'miss');
    assert.equal(result.details.route, 'mock/mock-small');
    assert.match((fromStruct(result.output.response) as Json).choices[0].message.content, /mock-small answers/);
  });

  test('svc execute --kind prompt_request --file p.json and svc work-unit execute <id>', async () => {
    const cli = async (args: string[]) => {
      const { stdout } = await runFile(process.execPath, ['bin/svc.mjs', ...args, '--json'], { env: { ...process.env, SVC_URL: s.http.url, SVC_API_KEY: KEYS.acmeWriter } });
      return JSON.parse(stdout) as Json;
    };
    const file = path.join(dir, 'p.json');
    writeFileSync(file, JSON.stringify({ model: 'mock-small', messages: [{ role: 'user', content: 'From the CLI' }] }));
    const inline = await cli(['execute', '--kind', 'prompt_request', '--file', file]);
    assert.match(inline.output.response.choices[0].message.content, /mock-small answers/);
    const wu = await createPrompt('CLI by id');
    const byId = await cli(['work-unit', 'execute', wu.work_unit_id]);
    assert.equal(byId.work_unit_id, wu.work_unit_id);
    assert.equal(byId.details.cache, 'miss');
  });
});
