/**
 * The training adapter through the real server, on SQLite and PostgreSQL:
 * checkpoints round-trip bit-exact; unchanged tensors (frozen layers,
 * embeddings) are stored once across checkpoints and counted as checkpoint
 * bytes avoided; an identical training run is answered from the recorded
 * result (training runs avoided, GPU seconds avoided as a labelled estimate);
 * bad files, roles and tenants are refused with nothing stored.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { parseSafetensors } from '../../src/svc/adapters/training/safetensors.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runSvc } from '../helpers/cli.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { checkpoint, writeSafetensors } from './checkpoint-fixtures.ts';

type Json = Record<string, any>;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const MODEL = { vocab: 512, hidden: 128, layers: 4, frozenLayers: 2 };

for (const engine of engines()) {
  describe(`training adapter on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    const ok = async (r: Response, status = 201) => {
      assert.equal(r.status, status, await r.clone().text());
      return (await r.json()) as Json;
    };
    const putCheckpoint = (step: number, file: Buffer, key: string = KEYS.acmeWriter) =>
      s.call('POST', '/v1/adapters/training/checkpoints', { key, body: { run: 'ft/run-1', step, bucket: 'ckpt', key: `run-1/step-${step}.safetensors`, body_base64: file.toString('base64') } });
    const metric = async (name: string) => {
      const text = await (await s.call('GET', '/metrics')).text();
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    };

    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => {
      await s.close();
    });

    test('bad checkpoints, roles and tenants: clear 4xx, nothing stored', async () => {
      const good = checkpoint(MODEL, 0);
      const truncated = good.subarray(0, good.length - 10);
      const badHeader = Buffer.concat([Buffer.from([4, 0, 0, 0, 0, 0, 0, 0]), Buffer.from('{{{{')]);
      const badDtype = writeSafetensors([{ name: 'x', dtype: 'F31', shape: [2], data: new Uint8Array(8) }]);
      const badShape = writeSafetensors([{ name: 'x', dtype: 'F32', shape: [3], data: new Uint8Array(8) }]);
      for (const file of [truncated, badHeader, badDtype, badShape, Buffer.from('abc')]) {
        const r = await putCheckpoint(0, file);
        assert.equal(r.status, 400);
        assert.match(((await r.json()) as Json).error.message, /safetensors/);
      }
      assert.equal((await putCheckpoint(0, good, KEYS.acmeReader)).status, 403);
      assert.equal((await s.app.store.manifests.page(undefined, '', 10)).length, 0);
    });

    test('unchanged tensors are stored once across checkpoints: checkpoint bytes avoided, measured', async () => {
      const before = await metric('svc_training_checkpoint_bytes_avoided_total');
      const files = [0, 1, 2].map((step) => checkpoint(MODEL, step));
      const layout = parseSafetensors(files[1]!);
      const frozen = layout.tensors.filter((t) => t.name.startsWith('embed') || /^layers\.[01]\./.test(t.name));
      const frozenBytes = frozen.reduce((n, t) => n + t.end - t.begin, 0);
      const first = await ok(await putCheckpoint(0, files[0]!));
      assert.equal(first.checkpoint, 1);
      assert.equal(first.tensors_unchanged_since_previous, null);
      const second = await ok(await putCheckpoint(1, files[1]!));
      assert.equal(second.tensors_unchanged_since_previous, frozen.length);
      assert.equal(second.tensor_bytes_unchanged_since_previous, frozenBytes);
      // Every frozen tensor's bytes were found already stored (tensor-aligned chunks), none of the trained ones.
      assert.ok(second.checkpoint_bytes_avoided >= frozenBytes, `${second.checkpoint_bytes_avoided} >= ${frozenBytes}`);
      assert.ok(second.checkpoint_bytes_avoided < frozenBytes + layout.header_bytes + 64 * 1024);
      assert.ok(second.bytes_stored < files[1]!.length - frozenBytes + 64 * 1024);
      const third = await ok(await putCheckpoint(2, files[2]!));
      const list = await ok(await s.call('POST', '/v1/adapters/training/checkpoints/list', { key: KEYS.acmeReader, body: { run: 'ft/run-1' } }), 200);
      assert.deepEqual(list.checkpoints.map((c: Json) => c.step), [0, 1, 2]);
      assert.equal(list.checkpoint_bytes_avoided, first.checkpoint_bytes_avoided + second.checkpoint_bytes_avoided + third.checkpoint_bytes_avoided);
      assert.equal(await metric('svc_training_checkpoint_bytes_avoided_total'), before + list.checkpoint_bytes_avoided);
      // Bit-exact round trip.
      const got = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeReader, body: { bucket: 'ckpt', key: 'run-1/step-1.safetensors' } });
      assert.equal(sha(Buffer.from(await got.arrayBuffer())), sha(files[1]!));
      // Other tenants see nothing.
      assert.equal((await s.call('POST', '/v1/adapters/training/checkpoints/list', { key: KEYS.globexWriter, body: { run: 'ft/run-1' } })).status, 404);
    });

    test('an identical training run is answered from the recorded result; GPU seconds avoided are an estimate', async () => {
      const data = await ok(await s.call('POST', '/v1/s3/objects', { key: KEYS.acmeWriter, body: { bucket: 'data', key: 'train.jsonl', body_text: '{"x":1}\n{"x":2}\n' } }));
      const run = { run: 'ft/lr-sweep', dataset_manifests: [data.manifest_id], config: { lr: 0.0003, epochs: 3, model: 'tiny' }, code_digest: 'a'.repeat(64) };
      const runsBefore = await metric('svc_training_runs_avoided_total');
      const gpuBefore = await metric('svc_training_gpu_seconds_avoided_total');

      const first = await ok(await s.call('POST', '/v1/adapters/training/runs/submit', { key: KEYS.acmeWriter, body: run }), 200);
      assert.equal(first.status, 'train');
      const again = await ok(await s.call('POST', '/v1/adapters/training/runs/submit', { key: KEYS.acmeWriter, body: run }), 200);
      assert.equal(again.status, 'identical_run_in_progress');
      assert.equal(again.run.run_id, first.run.run_id);
      await ok(await s.call('POST', '/v1/adapters/training/runs/complete', { key: KEYS.acmeWriter, body: { run_id: first.run.run_id, result: { eval_loss: 1.234 }, gpu_seconds: 3600 } }), 200);
      assert.equal((await s.call('POST', '/v1/adapters/training/runs/complete', { key: KEYS.acmeWriter, body: { run_id: first.run.run_id, result: {} } })).status, 409);

      // Same datasets, same config written in another key order, same code: answered from the record.
      const hit = await ok(await s.call('POST', '/v1/adapters/training/runs/submit', { key: KEYS.acmeWriter, body: { ...run, config: { model: 'tiny', epochs: 3, lr: 0.0003 } } }), 200);
      assert.equal(hit.status, 'answered_from_record');
      assert.deepEqual(hit.run.result, { eval_loss: 1.234 });
      assert.deepEqual(hit.gpu_seconds_avoided, { value: 3600, estimate: true, basis: 'recorded_run_gpu_seconds' });
      assert.equal(await metric('svc_training_runs_avoided_total'), runsBefore + 1);
      assert.equal(await metric('svc_training_gpu_seconds_avoided_total'), gpuBefore + 3600);
      const events = (await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['training.run_avoided'], limit: 10 } })).json()) as Json;
      assert.equal(events.events.length, 1);
      const dashboard = (await (await s.call('GET', '/v1/reports/dashboard?tenant=acme')).json()) as Json;
      assert.equal(dashboard.sections.data.training.runs_avoided.value, 1);

      // Any change is a new run: config, code, data.
      for (const changed of [{ ...run, config: { ...run.config, lr: 0.001 } }, { ...run, code_digest: 'b'.repeat(64) }]) {
        assert.equal((await ok(await s.call('POST', '/v1/adapters/training/runs/submit', { key: KEYS.acmeWriter, body: changed }), 200)).status, 'train');
      }
      // Another tenant cannot use acme's manifests nor complete its runs.
      const foreign = await s.call('POST', '/v1/adapters/training/runs/submit', { key: KEYS.globexWriter, body: run });
      assert.equal(foreign.status, 404);
      assert.equal((await s.call('POST', '/v1/adapters/training/runs/complete', { key: KEYS.globexWriter, body: { run_id: first.run.run_id, result: {} } })).status, 404);
      // Bad input.
      for (const body of [{ ...run, code_digest: 'xyz' }, { ...run, dataset_manifests: [] }, { ...run, extra: 1 }]) {
        assert.equal((await s.call('POST', '/v1/adapters/training/runs/submit', { key: KEYS.acmeWriter, body })).status, 400);
      }
    });

    test('the CLI stores checkpoints and answers a resubmitted run from its record', { skip: engine.name !== 'sqlite' }, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'svc-train-cli-'));
      const env = { SVC_URL: s.url, SVC_API_KEY: KEYS.acmeWriter };
      const file = path.join(dir, 'c.safetensors');
      writeFileSync(file, checkpoint({ vocab: 64, hidden: 32, layers: 2, frozenLayers: 1 }, 0));
      const put = await runSvc(['--json', 'adapter', 'training', 'checkpoint', file, '--run', 'cli/run', '--bucket', 'ckpt', '--key', 'cli/c0.safetensors', '--step', '0'], env);
      assert.equal(put.status, 0, put.stderr);
      assert.equal(JSON.parse(put.stdout).checkpoint, 1);
      const data = await ok(await s.call('POST', '/v1/s3/objects', { key: KEYS.acmeWriter, body: { bucket: 'data', key: 'cli.jsonl', body_text: '{"x":9}\n' } }));
      const config = path.join(dir, 'config.json');
      writeFileSync(config, JSON.stringify({ lr: 0.1 }));
      const submit = ['--json', 'adapter', 'training', 'submit', '--run', 'cli/run', '--dataset', data.manifest_id, '--config', config, '--code-digest', 'c'.repeat(64), '--estimated-gpu-seconds', '120'];
      const first = JSON.parse((await runSvc(submit, env)).stdout);
      assert.equal(first.status, 'train');
      const result = path.join(dir, 'result.json');
      writeFileSync(result, JSON.stringify({ acc: 0.9 }));
      assert.equal((await runSvc(['--json', 'adapter', 'training', 'complete', first.run.run_id, '--result', result], env)).status, 0);
      const hit = JSON.parse((await runSvc(submit, env)).stdout);
      assert.equal(hit.status, 'answered_from_record');
      assert.deepEqual(hit.gpu_seconds_avoided, { value: 120, estimate: true, basis: 'declared_estimate' });
    });
  });
}
