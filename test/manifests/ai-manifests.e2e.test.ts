/**
 * Issue 10, defect 13, through the real HTTP server on SQLite and
 * PostgreSQL: AI compute manifests appear in the manifest list and the
 * explorer (with their cache result), rehydrating one is a clear 409, and a
 * `rehydration_failed` body names the work unit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer } from '../helpers/server.ts';
import { startWithMockProvider } from '../helpers/mock-provider-server.ts';
import { flipStoredByte } from '../helpers/chunk-damage.ts';

type Json = Record<string, any>;
const writer = { key: KEYS.acmeWriter };

for (const engine of engines()) {
  describe(`AI compute manifests among the manifests (${engine.name})`, { skip: engine.skip }, () => {
    let s: TestServer;
    const chat = async (content: string) => {
      const r = await s.call('POST', '/v1/chat/completions', { ...writer, body: { model: 'mock-small', messages: [{ role: 'user', content }] } });
      assert.equal(r.status, 200, await r.clone().text());
      await r.json();
      return { workUnit: r.headers.get('x-svc-work-unit-id')!, manifest: r.headers.get('x-svc-manifest-id')!, cache: r.headers.get('x-svc-cache') };
    };
    const putObject = async (key: string, bytes: Buffer) => {
      const r = await s.call('POST', '/v1/s3/objects', { ...writer, body: { bucket: 'ai-mf', key, body_base64: bytes.toString('base64') } });
      assert.equal(r.status, 201, await r.clone().text());
      return (await r.json()) as Json;
    };
    before(async () => {
      s = await startWithMockProvider(engine.name);
    });
    after(async () => s?.close());

    test('the manifest list shows AI compute manifests next to byte-object ones, in id order across both, page by page', async () => {
      const object = await putObject('one.txt', Buffer.from('bytes for the list'));
      const miss = await chat('What does the list show?');
      const hit = await chat('What does the list show?');
      assert.equal(hit.cache, 'exact_hit');
      const all = (await (await s.call('GET', '/v1/manifests?tenant=acme', writer)).json()) as Json;
      const byId = new Map(all.manifests.map((m: Json) => [m.manifest_id, m]));
      assert.equal((byId.get(object.manifest_id) as Json)?.kind, 'byte_object');
      const computed = byId.get(miss.manifest) as Json;
      assert.deepEqual([computed?.kind, computed?.work_unit_id, computed?.cache_result, computed?.state, computed?.bytes_stored, computed?.verifier_status], ['ai_chat_completion', miss.workUnit, 'miss', 'active', 0, 'passed']);
      assert.equal((byId.get(hit.manifest) as Json)?.cache_result, 'exact_hit');
      assert.match(computed.logical_ref, /^ai:\/\//);
      const ids = all.manifests.map((m: Json) => m.manifest_id);
      assert.deepEqual(ids, [...ids].sort());
      // Walking one manifest per page returns the same list.
      const walked: string[] = [];
      let cursor: string | null = null;
      do {
        const page = (await (await s.call('GET', `/v1/manifests?tenant=acme&limit=1${cursor ? `&cursor=${cursor}` : ''}`, writer)).json()) as Json;
        walked.push(...page.manifests.map((m: Json) => m.manifest_id));
        cursor = page.next_cursor;
      } while (cursor);
      assert.deepEqual(walked, ids);
      const redacted = (await (await s.call('GET', '/v1/manifests?tenant=acme&redacted=true', writer)).json()) as Json;
      const row = redacted.manifests.find((m: Json) => m.manifest_id === hit.manifest);
      assert.deepEqual(Object.keys(row).sort(), ['bytes_in', 'bytes_stored', 'cache_result', 'contract', 'created_at', 'kind', 'manifest_id', 'state', 'trace_id', 'verifier_status']);
    });

    test("explore counts AI manifests by kind and contract and fills each row's cache_result from the manifest", async () => {
      const hitAgain = await chat('Explore me');
      const again = await chat('Explore me');
      const r = (await (await s.call('GET', '/v1/manifests/explore?tenant=acme', writer)).json()) as Json;
      assert.ok(r.by_kind.ai_chat_completion >= 2, JSON.stringify(r.by_kind));
      assert.ok(r.by_contract.exact_bytes >= r.by_kind.ai_chat_completion);
      const rows = new Map(r.rows.map((row: Json) => [row.manifest_id, row]));
      assert.equal((rows.get(hitAgain.manifest) as Json)?.cache_result, 'miss');
      assert.equal((rows.get(again.manifest) as Json)?.cache_result, 'exact_hit');
      assert.ok(r.rows.some((row: Json) => row.kind === 'byte_object' && row.cache_result === 'not_applicable'));
      const other = (await (await s.call('GET', '/v1/manifests/explore', { key: KEYS.globexWriter })).json()) as Json;
      assert.equal(other.by_kind.ai_chat_completion, undefined, "another tenant's explorer does not count them");
    });

    test('rehydrating an AI compute manifest is a 409 conflict saying what it can and cannot do, with its work unit', async () => {
      const ai = await chat('Can this be rehydrated?');
      const get = await s.call('GET', `/v1/manifests/${ai.manifest}`, writer);
      assert.equal(get.status, 200);
      const r = await s.call('POST', `/v1/manifests/${ai.manifest}/rehydrate`, { ...writer, body: {} });
      const body = (await r.json()) as Json;
      assert.equal(r.status, 409, JSON.stringify(body));
      assert.equal(body.error.code, 'conflict');
      assert.equal(body.error.work_unit_id, ai.workUnit);
      assert.ok(body.error.policy_bundle_id);
      assert.match(body.error.message, /AI compute manifest .* stores no bytes, so it cannot be rehydrated/);
      assert.deepEqual([body.error.details.can, body.error.details.cannot.includes('rehydrate')], [['get', 'list', 'explore'], true]);
      assert.equal(r.headers.get('x-svc-work-unit-id'), ai.workUnit);
      const foreign = await s.call('POST', `/v1/manifests/${ai.manifest}/rehydrate`, { key: KEYS.globexWriter, body: {} });
      assert.equal(foreign.status, 404, "another tenant's compute manifest stays not found");
    });

    test('a rehydration_failed body carries the work unit id of the manifest', async () => {
      const bytes = Buffer.alloc(200_000);
      for (let i = 0; i < bytes.length; i++) bytes[i] = (i * 7919) % 251;
      const put = await putObject('corrupt.bin', bytes);
      const manifest = (await (await s.call('GET', `/v1/manifests/${put.manifest_id}`, writer)).json()) as Json;
      const victim = manifest.chunks[0];
      await flipStoredByte(s.app.objects.chunkBackend, { chunk_scope: manifest.chunk_scope, id: victim.id, codec: victim.codec }, 10);
      const r = await s.call('POST', `/v1/manifests/${put.manifest_id}/rehydrate`, { ...writer, body: {} });
      const body = (await r.json()) as Json;
      assert.equal(body.error.code, 'rehydration_failed');
      assert.equal(body.error.work_unit_id, manifest.work_unit_id);
      assert.equal(body.error.policy_bundle_id, manifest.policy_bundle_id);
      assert.equal(r.headers.get('x-svc-work-unit-id'), manifest.work_unit_id);
    });
  });
}
