/**
 * Jobs svc runs itself (kind work_units): a byte_object ingest and an AI batch
 * (embedding and chat work units, against the mock OpenAI-compatible upstream)
 * stored first, executed when the job is due, the job completed with what came
 * of each; another tenant's unit is refused at submission with nothing stored;
 * a unit that fails fails the job and stops the batch; the caller cannot
 * complete such a job; a job's manifests rehydrate.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';
import { runSvc } from '../helpers/cli.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

type Json = Record<string, any>;
const H = 3_600_000;

describe('scheduler work_units jobs', () => {
  let mock: MockOpenAI;
  let s: TestServer;
  before(async () => {
    mock = await startMockOpenAI();
    const providers = [{ name: 'mock', base_url: mock.url, models: [{ id: 'mock-small', size_class: 'small' }, { id: 'mock-embed', size_class: 'small', capabilities: ['embeddings'] }] }];
    s = await startTestServer({ env: { SVC_SCHEDULER_TICK_MS: '0', SVC_PROVIDERS_JSON: JSON.stringify(providers) } });
  });
  after(async () => {
    await s?.close();
    await mock?.close();
  });

  const unit = async (body: Json, key: string = KEYS.acmeWriter) => {
    const r = await s.call('POST', '/v1/work-units', { key, body });
    assert.equal(r.status, 201, await r.clone().text());
    return ((await r.json()) as Json).work_unit_id as string;
  };
  const bytes = (text: string) => unit({ kind: 'byte_object', logical_ref: `s3://bucket/${text}`, payload: { _svc_encoding: 'base64', data: Buffer.from(text.repeat(200)).toString('base64') } });
  const submit = (ids: string[], key: string = KEYS.acmeWriter) =>
    s.call('POST', '/v1/scheduler/jobs', { key, body: { kind: 'work_units', work_unit_ids: ids, deadline: new Date(Date.now() + 2 * H).toISOString(), duration_seconds: 600, zone: 'DE', mode: 'observe' } });
  const finished = async (id: string) => {
    for (let i = 0; i < 200; i++) {
      const job = ((await (await s.call('GET', `/v1/scheduler/jobs/${id}`, { key: KEYS.acmeReader })).json()) as Json).job;
      if (job.state !== 'scheduled' && job.state !== 'running') return job;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error('job did not finish');
  };

  it('executes a byte_object ingest and an AI batch when due, and completes with their manifests', async () => {
    const ids = [await bytes('ingest-me'), await unit({ kind: 'embedding_request', logical_ref: 'emb://batch/1', payload: { model: 'mock-embed', input: ['alpha', 'beta'] } }), await unit({ kind: 'prompt_request', logical_ref: 'prompt://batch/2', payload: { model: 'mock-small', messages: [{ role: 'user', content: 'hello' }] } })];
    const res = await submit(ids);
    assert.equal(res.status, 201, await res.clone().text());
    const job = ((await res.json()) as Json).job;
    assert.equal(job.kind, 'work_units');
    assert.deepEqual(job.work_unit_ids, ids);
    await s.app.scheduler.tick(100);
    const done = await finished(job.id);
    assert.equal(done.state, 'succeeded', JSON.stringify(done.result));
    assert.deepEqual(done.result.executed.map((e: Json) => e.work_unit_id), ids);
    for (const e of done.result.executed) assert.match(e.manifest_id, /^(mf|am)_/);
    const manifest = await s.call('GET', `/v1/manifests/${done.result.executed[0].manifest_id}`, { key: KEYS.acmeReader });
    assert.equal(manifest.status, 200);
    const events = ((await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['scheduler.job.completed'], limit: 1000 } })).json()) as Json).events as Json[];
    assert.ok(events.some((e) => e.payload.job_id === job.id && e.payload.executed === 3));
    const complete = await s.call('POST', `/v1/scheduler/jobs/${job.id}/complete`, { key: KEYS.acmeWriter, body: { outcome: 'succeeded' } });
    assert.equal(complete.status, 409, 'svc completes work_units jobs itself');
  });

  it("another tenant's work unit is refused at submission (not_found) and nothing is stored", async () => {
    const theirs = await unit({ kind: 'byte_object', logical_ref: 's3://globex/x', payload: { _svc_encoding: 'base64', data: Buffer.from('globex').toString('base64') } }, KEYS.globexWriter);
    const before = ((await (await s.call('GET', '/v1/scheduler/jobs', { key: KEYS.acmeReader })).json()) as Json).jobs.length;
    const res = await submit([theirs]);
    assert.equal(res.status, 404);
    const after = ((await (await s.call('GET', '/v1/scheduler/jobs', { key: KEYS.acmeReader })).json()) as Json).jobs.length;
    assert.equal(after, before);
    for (const bad of [{ kind: 'work_units' }, { kind: 'external', work_unit_ids: [theirs] }]) {
      const r = await s.call('POST', '/v1/scheduler/jobs', { key: KEYS.acmeWriter, body: { ...bad, deadline: new Date(Date.now() + 2 * H).toISOString(), duration_seconds: 60, zone: 'DE' } });
      assert.equal(r.status, 400, JSON.stringify(bad));
    }
  });

  it('a unit that fails fails the job and the units after it are not run', async () => {
    const good = await bytes('first');
    const failing = await unit({ kind: 'prompt_request', logical_ref: 'prompt://batch/missing-model', payload: { model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] } });
    const never = await bytes('never-run');
    const job = ((await (await submit([good, failing, never])).json()) as Json).job;
    await s.app.scheduler.tick(100);
    const done = await finished(job.id);
    assert.equal(done.state, 'failed');
    assert.deepEqual(done.result.executed.map((e: Json) => e.work_unit_id), [good]);
    assert.equal(done.result.error.work_unit_id, failing);
    const neverUnit = ((await (await s.call('GET', `/v1/work-units/${never}`, { key: KEYS.acmeReader })).json()) as Json);
    assert.notEqual(neverUnit.state, 'executed');
  });

  it('svc scheduler submit --execute makes a work_units job', async () => {
    const id = await bytes('from-cli');
    const r = await runSvc(['--json', 'scheduler', 'submit', '--execute', id, '--deadline', new Date(Date.now() + 2 * H).toISOString(), '--duration-seconds', '60', '--zone', 'DE', '--mode', 'observe'], { SVC_URL: s.url, SVC_API_KEY: KEYS.acmeWriter });
    assert.equal(r.status, 0, r.stderr);
    const job = (JSON.parse(r.stdout) as Json).job;
    assert.equal(job.kind, 'work_units');
    assert.deepEqual(job.work_unit_ids, [id]);
  });
});
