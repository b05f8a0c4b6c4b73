/**
 * Execute and manifests through the real HTTP server, on SQLite and
 * PostgreSQL: the Execute result, rehydration, a corrupted chunk leading to
 * quarantine, list/explore, and export → import on a fresh state directory.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { CORPUS_KINDS, corpusFile } from '../../bench/corpus/corpus-files.ts';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { flipStoredByte } from '../helpers/chunk-damage.ts';
import { chunkListSha256 } from '../../src/svc/exact-bytes/chunk-list-digest.ts';

const envelope = (bytes: Uint8Array) => ({ _svc_encoding: 'base64', data: Buffer.from(bytes).toString('base64') });
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const writer = { key: KEYS.acmeWriter };

for (const engine of engines()) {
  describe(`execute and manifests on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    const executeInline = async (data: Uint8Array, logicalRef: string, extra: Record<string, unknown> = {}) => {
      const res = await s.call('POST', '/v1/work-units/execute', { ...writer, body: { kind: 'byte_object', logical_ref: logicalRef, payload: envelope(data), ...extra } });
      const text = await res.text();
      assert.equal(res.status, 200, text);
      return { res, result: JSON.parse(text) as any };
    };
    const rehydrate = (id: string, body: unknown = {}) => s.call('POST', `/v1/manifests/${id}/rehydrate`, { ...writer, body });

    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => s?.close());

    test('inline execute returns the spec result and headers, and the manifest rehydrates exactly', async () => {
      const data = corpusFile('log-like', 500_000, 'mf-inline');
      const { res, result } = await executeInline(data, 'file://logs/app.log');
      assert.deepEqual(Object.keys(result).filter((k) => ['work_unit_id', 'manifest_id', 'accepted', 'mode', 'output', 'details'].includes(k)).sort(), ['accepted', 'details', 'manifest_id', 'mode', 'output', 'work_unit_id']);
      assert.equal(result.accepted, true);
      assert.equal(result.mode, 'enforce');
      assert.equal(result.output.sha256, sha256(data));
      assert.equal(result.details.bytes_in, data.length);
      assert.ok(result.details.bytes_stored < data.length / 3, 'logs compress');
      assert.equal(res.headers.get('x-svc-manifest-id'), result.manifest_id);
      assert.equal(res.headers.get('x-svc-mode'), 'enforce');
      const back = await rehydrate(result.manifest_id);
      assert.equal(back.status, 200);
      assert.deepEqual(Buffer.from(await back.arrayBuffer()), data);
      const manifest = (await (await s.call('GET', `/v1/manifests/${result.manifest_id}`, writer)).json()) as any;
      assert.equal(manifest.verifier_status, 'passed', 'a whole rehydration verified the sha256');
      for (const field of ['manifest_id', 'work_unit_id', 'tenant', 'logical_ref', 'contract', 'mode', 'state', 'schema_version', 'sha256', 'bytes_in', 'bytes_stored', 'chunks', 'verifier_status', 'cache_result', 'trace_id', 'policy_bundle_id', 'created_at', 'updated_at']) {
        assert.ok(field in manifest, field);
      }
      assert.deepEqual(Object.keys(manifest.chunks[0]).sort(), ['codec', 'id', 'length', 'offset', 'stored_length']);
      const written = (await (await s.call('POST', '/v1/ledger/query', { key: ADMIN_KEY, body: { tenant: 'acme', event_types: ['manifest.written'] } })).json()) as any;
      assert.ok(written.events.some((e: any) => e.manifest_id === result.manifest_id));
    });

    test('execute by id runs a stored work unit once; a second execute is a conflict', async () => {
      const data = corpusFile('json', 100_000, 'mf-byid');
      const created = (await (await s.call('POST', '/v1/work-units', { ...writer, body: { kind: 'byte_object', logical_ref: 's3://b/byid.json', payload: envelope(data) } })).json()) as any;
      const res = await s.call('POST', `/v1/work-units/${created.work_unit_id}/execute`, { ...writer, body: {} });
      const result = (await res.json()) as any;
      assert.equal(res.status, 200);
      assert.equal(result.work_unit_id, created.work_unit_id);
      assert.equal(result.output.sha256, sha256(data));
      const wu = (await (await s.call('GET', `/v1/work-units/${created.work_unit_id}`, writer)).json()) as any;
      assert.deepEqual([wu.state, wu.manifest_id], ['executed', result.manifest_id]);
      assert.equal((await s.call('POST', `/v1/work-units/${created.work_unit_id}/execute`, { ...writer, body: {} })).status, 409);
    });

    test('observe mode stores raw chunks and reports what enforce would store', async () => {
      const data = corpusFile('log-like', 300_000, 'mf-observe');
      const { result } = await executeInline(data, 'file://observe.log', { mode: 'observe' });
      assert.equal(result.mode, 'observe');
      assert.equal(result.details.bytes_stored, data.length);
      assert.ok(result.details.would_store_bytes < data.length / 3);
      const manifest = (await (await s.call('GET', `/v1/manifests/${result.manifest_id}`, writer)).json()) as any;
      assert.ok(manifest.chunks.every((c: any) => c.codec === 'raw'));
      assert.deepEqual(Buffer.from(await (await rehydrate(result.manifest_id)).arrayBuffer()), data);
    });

    test('byte ranges of a manifest follow HTTP semantics', async () => {
      const data = corpusFile('random', 200_000, 'mf-range');
      const { result } = await executeInline(data, 'file://range.bin');
      const suffix = await rehydrate(result.manifest_id, { range: { suffix: 100 } });
      assert.equal(suffix.status, 206);
      assert.equal(suffix.headers.get('content-range'), `bytes ${data.length - 100}-${data.length - 1}/${data.length}`);
      assert.deepEqual(Buffer.from(await suffix.arrayBuffer()), data.subarray(data.length - 100));
      const clamped = await rehydrate(result.manifest_id, { range: { start: 10, end: 10_000_000 } });
      assert.deepEqual(Buffer.from(await clamped.arrayBuffer()), data.subarray(10));
      const viaHeader = await s.call('POST', `/v1/manifests/${result.manifest_id}/rehydrate`, { ...writer, body: {}, headers: { range: 'bytes=5-9' } });
      assert.equal(viaHeader.status, 206);
      assert.deepEqual(Buffer.from(await viaHeader.arrayBuffer()), data.subarray(5, 10));
      assert.equal((await rehydrate(result.manifest_id, { range: { start: data.length } })).status, 416);
      assert.equal((await rehydrate(result.manifest_id, { range: { start: -1 } })).status, 400);
      assert.equal((await rehydrate(result.manifest_id, { range: { start: 5, end: 2 } })).status, 400);
    });

    test('a corrupted chunk fails rehydration, quarantines the manifest, writes an incident and blocks deletion', async () => {
      const data = corpusFile('random', 300_000, 'mf-corrupt');
      const put = (await (await s.call('POST', '/v1/s3/objects', { ...writer, body: { bucket: 'vault', key: 'c.bin', body_base64: Buffer.from(data).toString('base64') } })).json()) as any;
      const manifest = (await (await s.call('GET', `/v1/manifests/${put.manifest_id}`, writer)).json()) as any;
      const victim = manifest.chunks[0];
      await flipStoredByte(s.app.objects.chunkBackend, { chunk_scope: manifest.chunk_scope, id: victim.id, codec: victim.codec }, 10);

      const res = await rehydrate(put.manifest_id);
      assert.equal(res.status, 500);
      const body = (await res.json()) as any;
      assert.equal(body.error.code, 'rehydration_failed');
      assert.equal(body.error.details.chunk_id, victim.id);
      const after = (await (await s.call('GET', `/v1/manifests/${put.manifest_id}`, writer)).json()) as any;
      assert.deepEqual([after.state, after.verifier_status], ['quarantined', 'failed']);
      const incidents = (await (await s.call('POST', '/v1/ledger/query', { key: ADMIN_KEY, body: { tenant: 'acme', event_types: ['incident.rehydration_failed'] } })).json()) as any;
      const incident = incidents.events.find((e: any) => e.manifest_id === put.manifest_id);
      assert.ok(incident, 'an incident event was written');
      assert.equal(incident.payload.chunk_id, victim.id);
      assert.equal(incident.payload.lifecycle_deletion_blocked, true);
      const get = await s.call('POST', '/v1/s3/objects/get', { ...writer, body: { bucket: 'vault', key: 'c.bin' } });
      assert.equal(get.status, 500);
      const del = await s.call('POST', '/v1/s3/objects/delete', { key: ADMIN_KEY, body: { tenant: 'acme', bucket: 'vault', key: 'c.bin' } });
      assert.ok(del.status === 403 || del.status === 409, 'deletion stays blocked');
      const quarantined = (await (await s.call('GET', '/v1/manifests?state=quarantined', writer)).json()) as any;
      assert.ok(quarantined.manifests.some((m: any) => m.manifest_id === put.manifest_id));
    });

    test('a chunk list edited in the store fails the rehydration before any byte is sent and quarantines the manifest (decision 178)', async () => {
      const data = corpusFile('json', 400_000, 'mf-list-digest');
      const { result } = await executeInline(data, 'file://list-digest.json');
      const manifest = (await (await s.call('GET', `/v1/manifests/${result.manifest_id}`, writer)).json()) as any;
      assert.equal(manifest.chunk_list_sha256, chunkListSha256(manifest.chunks), 'recorded at write time');
      const written = (await (await s.call('POST', '/v1/ledger/query', { key: ADMIN_KEY, body: { tenant: 'acme', event_types: ['manifest.written'] } })).json()) as any;
      assert.equal(written.events.find((e: any) => e.manifest_id === result.manifest_id).payload.chunk_list_sha256, manifest.chunk_list_sha256, 'and in the ledger');
      assert.ok(manifest.chunks.length >= 4);
      // Swap two chunks (offsets re-tiled): each chunk still matches its id, the object does not.
      const chunks = [...manifest.chunks];
      [chunks[1], chunks[2]] = [chunks[2], chunks[1]];
      let offset = 0;
      for (const c of chunks) {
        c.offset = offset;
        offset += c.length;
      }
      const db = s.app.store.db;
      const [[body]] = (await db.values('SELECT body FROM manifests WHERE id = $1', [result.manifest_id])) as [[string]];
      await db.run('UPDATE manifests SET body = $1 WHERE id = $2', [JSON.stringify({ ...JSON.parse(body), chunks }), result.manifest_id]);

      const res = await rehydrate(result.manifest_id);
      assert.equal(res.status, 500);
      const failure = (await res.json()) as any;
      assert.equal(failure.error.code, 'rehydration_failed');
      assert.equal(failure.error.details.reason, 'chunk_list_mismatch');
      const after = (await (await s.call('GET', `/v1/manifests/${result.manifest_id}`, writer)).json()) as any;
      assert.deepEqual([after.state, after.verifier_status], ['quarantined', 'failed']);
    });

    test('manifests are listed by logical_ref with pagination, redacted on request, and explored by aggregates', async () => {
      for (let k = 0; k < 3; k++) await executeInline(corpusFile('json', 5_000, `mf-list-${k}`), 'file://listed/same.json');
      const page1 = (await (await s.call('GET', '/v1/manifests?logical_ref=file://listed/same.json&limit=2', writer)).json()) as any;
      assert.equal(page1.manifests.length, 2);
      assert.ok(page1.next_cursor);
      const page2 = (await (await s.call('GET', `/v1/manifests?logical_ref=file://listed/same.json&limit=2&cursor=${page1.next_cursor}`, writer)).json()) as any;
      assert.equal(page2.manifests.length, 1);
      const redacted = (await (await s.call('GET', '/v1/manifests?redacted=true&limit=5', writer)).json()) as any;
      assert.ok(redacted.manifests.length > 0);
      for (const row of redacted.manifests) {
        assert.equal('logical_ref' in row, false);
        assert.ok(row.manifest_id && row.trace_id && 'verifier_status' in row && 'cache_result' in row);
      }
      const explore = (await (await s.call('GET', '/v1/manifests/explore?tenant=acme', writer)).json()) as any;
      assert.ok(explore.by_kind.byte_object >= 3);
      assert.ok(explore.by_contract.exact_bytes >= 3);
      assert.ok(explore.by_state.active >= 3);
      assert.ok(explore.rows.every((r: any) => !('logical_ref' in r)));
      assert.equal((await s.call('GET', '/v1/manifests/explore?tenant=globex', writer)).status, 403);
    });

    test('another tenant cannot see or rehydrate a manifest', async () => {
      const { result } = await executeInline(Buffer.from('secret'), 'file://private');
      assert.equal((await s.call('GET', `/v1/manifests/${result.manifest_id}`, { key: KEYS.globexWriter })).status, 404);
      assert.equal((await s.call('POST', `/v1/manifests/${result.manifest_id}/rehydrate`, { key: KEYS.globexWriter, body: {} })).status, 404);
    });

    test('an export with chunks restores on a fresh state directory and every object rehydrates exactly', async () => {
      const originals = new Map<string, Buffer>();
      for (const kind of CORPUS_KINDS) {
        const data = corpusFile(kind, 120_000, `mf-export-${kind}`);
        const { result } = await executeInline(data, `file://export/${kind}`, { tenant: undefined });
        originals.set(result.manifest_id, data);
      }
      const exported = await s.call('POST', '/v1/manifests/export', { key: ADMIN_KEY, body: { tenant: 'acme', include_chunks: true } });
      assert.equal(exported.status, 200);
      const doc = (await exported.json()) as any;
      assert.equal(doc.format, 'svc.manifest-export');
      assert.ok(doc.ledger.events.length > 0);
      const fresh = await startTestServer({ engine: engine.name });
      try {
        const imported = await fresh.call('POST', '/v1/manifests/import', { key: ADMIN_KEY, body: doc });
        const report = (await imported.json()) as any;
        assert.equal(imported.status, 200, JSON.stringify(report));
        assert.equal(report.manifests_imported, doc.manifests.length);
        assert.ok(doc.manifests.some((m: any) => m.chunk_list_sha256), 'exports carry the list digest');
        const importedManifest = (await (await fresh.call('GET', `/v1/manifests/${doc.manifests[0].manifest_id}`, { key: ADMIN_KEY })).json()) as any;
        assert.equal('chunk_list_sha256' in importedManifest, false, 'an imported list digest is not taken on trust');
        // The manifest whose chunk list was edited above is quarantined with intact chunks.
        assert.equal(report.chunks_rejected.length, doc.manifests.filter((m: any) => m.state === 'quarantined' && m.state_reason !== 'chunk_list_mismatch').length);
        for (const m of doc.manifests) {
          const res = await fresh.call('POST', `/v1/manifests/${m.manifest_id}/rehydrate`, { key: ADMIN_KEY, body: {} });
          if (m.state === 'quarantined') {
            if (m.state_reason === 'chunk_list_mismatch') {
              // Imported without its list digest, the edited list is caught by the whole-object hash: at the end
              // of the body, after the status line, so the body is cut short.
              await assert.rejects(res.arrayBuffer());
              continue;
            }
            assert.equal(res.status, 500, 'the chunk corrupted earlier in this suite was not carried over');
            continue;
          }
          assert.equal(res.status, 200, m.manifest_id);
          const bytes = Buffer.from(await res.arrayBuffer());
          assert.equal(sha256(bytes), m.sha256);
          const original = originals.get(m.manifest_id);
          if (original) assert.deepEqual(bytes, original);
        }
        const again = (await (await fresh.call('POST', '/v1/manifests/import', { key: ADMIN_KEY, body: doc })).json()) as any;
        assert.equal(again.manifests_skipped, doc.manifests.length, 'importing twice changes nothing');
      } finally {
        await fresh.close();
      }
    });

    test('an imported chunk that does not match its id is rejected, and its manifest fails rehydration instead of lying', async () => {
      const { result } = await executeInline(Buffer.from('tamper me'), 'file://tamper');
      const doc = (await (await s.call('POST', '/v1/manifests/export', { key: ADMIN_KEY, body: { tenant: 'acme', include_chunks: true } })).json()) as any;
      const target = doc.manifests.find((m: any) => m.manifest_id === result.manifest_id).chunks[0].id;
      doc.chunks.find((c: any) => c.id === target).data_base64 = Buffer.from('tampered').toString('base64');
      const fresh = await startTestServer({ engine: engine.name });
      try {
        const report = (await (await fresh.call('POST', '/v1/manifests/import', { key: ADMIN_KEY, body: doc })).json()) as any;
        assert.ok(report.chunks_rejected.includes(target));
        const res = await fresh.call('POST', `/v1/manifests/${result.manifest_id}/rehydrate`, { key: ADMIN_KEY, body: {} });
        assert.equal(res.status, 500);
        assert.equal(((await res.json()) as any).error.details.reason, 'missing');
      } finally {
        await fresh.close();
      }
    });

    test('GET /v1/manifests/{id} also answers for AI compute manifests, tenant-checked', async () => {
      const id = `mf_${'0'.repeat(25)}a`;
      const compute = { manifest_id: id, work_unit_id: `wu_${'0'.repeat(25)}a`, tenant: 'acme', kind: 'prompt_request', contract: 'exact_bytes', status: 'completed', cache: 'miss', route: 'small', result: { fallback_used: false }, trace_id: 't', created_at: new Date().toISOString() };
      await s.app.store.aiManifests.insert(compute as never);
      const got = await s.call('GET', `/v1/manifests/${id}`, writer);
      assert.equal(got.status, 200);
      assert.equal(((await got.json()) as any).kind, 'prompt_request');
      assert.equal((await s.call('GET', `/v1/manifests/${id}`, { key: KEYS.globexWriter })).status, 404);
      assert.equal((await rehydrate(id)).status, 409, 'compute manifests have no bytes to rehydrate (a conflict, not a missing manifest)');
      assert.equal((await s.call('POST', `/v1/manifests/${id}/rehydrate`, { key: KEYS.globexWriter, body: {} })).status, 404);
    });

    test('a writer may not export', async () => {
      assert.equal((await s.call('POST', '/v1/manifests/export', { ...writer, body: {} })).status, 403);
    });
  });
}
