/**
 * Storage contract for manifests, the chunk index, object pointers and
 * multipart uploads, run unchanged on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import type { ByteManifest } from '../../src/svc/manifests/manifest.ts';
import type { ObjectRow } from '../../src/svc/store/repositories/objects.ts';
import { type Store, openStore } from '../../src/svc/store/store.ts';
import { type EngineTarget, engineTarget, engines } from '../helpers/engines.ts';

function manifest(tenant: string, overrides: Partial<ByteManifest> = {}): ByteManifest {
  const now = new Date().toISOString();
  return {
    manifest_id: newId('mf'), schema_version: 1, kind: 'byte_object', work_unit_id: newId('wu'), plan_id: null, tenant, logical_ref: 's3://b/k',
    contract: 'exact_bytes', mode: 'enforce', state: 'active', sha256: 'ab'.repeat(32), bytes_in: 5_000_000_000, bytes_stored: 1234,
    chunk_scope: 't-0123456789abcdef0123456789abcdef',
    chunking: { algorithm: 'fastcdc', gear: 'sha256-seed-v1', min_size: 16384, avg_size: 65536, max_size: 262144, normalization: 2 },
    chunks: [{ id: `ch_${'c'.repeat(64)}`, offset: 0, length: 5_000_000_000, stored_length: 1234, codec: 'zstd' }],
    applied_actions: ['hash', 'content_defined_chunk'], verifier_status: 'unverified', cache_result: 'not_applicable',
    stats: { chunks_new: 1, chunks_reused: 0, bytes_deduplicated: 0, bytes_saved_by_compression: 0, would_store_bytes: 1234, detected_format: null },
    trace_id: 'trace', policy_bundle_id: 'pb_x', created_at: now, updated_at: now, state_reason: null, ...overrides,
  };
}

function objectRow(tenant: string, key: string, overrides: Partial<ObjectRow> = {}): ObjectRow {
  return { tenant, bucket: 'b', object_key: key, manifest_id: newId('mf'), work_unit_id: newId('wu'), state: 'active', size: 10, sha256: 'cd'.repeat(32), content_type: null, updated_at: new Date().toISOString(), ...overrides };
}

for (const engine of engines()) {
  describe(`manifest and object storage contract on ${engine.name}`, { skip: engine.skip }, () => {
    let target: EngineTarget;
    let store: Store;
    before(async () => {
      target = await engineTarget(engine.name);
      store = await openStore(target);
    });
    after(async () => {
      await store?.close();
      await target?.cleanup();
    });

    test('a manifest round-trips, byte counts beyond 32 bits included', async () => {
      const m = manifest('acme');
      await store.manifests.insert(m);
      assert.deepEqual(await store.manifests.get(m.manifest_id), m);
    });

    test('a manifest write adds no row per chunk: the retired chunks table stays empty (decision 174)', async () => {
      const before = Number((await store.db.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM chunks'))?.n);
      const m = manifest('acme', {
        chunks: Array.from({ length: 50 }, (_, i) => ({ id: `ch_${i.toString(16).padStart(64, 'e')}`, offset: i * 100, length: 100, stored_length: 100, codec: 'raw' as const })),
      });
      await store.manifests.insert(m);
      assert.equal((await store.manifests.get(m.manifest_id))?.chunks.length, 50);
      assert.equal(Number((await store.db.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM chunks'))?.n), before);
    });

    test('state transitions only apply from the expected state', async () => {
      const m = manifest('acme');
      await store.manifests.insert(m);
      assert.equal(await store.manifests.transition(m.manifest_id, ['active'], 'quarantined', 'corrupt'), true);
      assert.equal(await store.manifests.transition(m.manifest_id, ['active'], 'tombstoned', 'object_delete'), false);
      const got = await store.manifests.get(m.manifest_id);
      assert.deepEqual([got?.state, got?.state_reason], ['quarantined', 'corrupt']);
      await store.manifests.setVerifierStatus(m.manifest_id, 'failed');
      assert.equal((await store.manifests.get(m.manifest_id))?.verifier_status, 'failed');
    });

    test('a large manifest is read from the parsed-body cache while its state columns still come from the row (decision 196)', async () => {
      const chunks = Array.from({ length: 200 }, (_, i) => ({ id: `ch_${i.toString(16).padStart(64, 'a')}`, offset: i * 100, length: 100, stored_length: 100, codec: 'raw' as const }));
      const m = manifest('acme', { chunks, bytes_in: 20_000 });
      await store.manifests.insert(m);
      const first = await store.manifests.get(m.manifest_id);
      assert.deepEqual(first, m);
      const second = await store.manifests.get(m.manifest_id);
      assert.deepEqual(second, m);
      assert.equal(second!.chunks, first!.chunks, 'the parsed chunk list is shared, not parsed again');
      assert.ok(Object.isFrozen(second!.chunks), 'and cannot be changed through a reader');
      assert.throws(() => (second!.chunks as unknown as unknown[]).push({}));
      // State changes after the write are seen at once, through the cache.
      assert.equal(await store.manifests.transition(m.manifest_id, ['active'], 'quarantined', 'corrupt'), true);
      await store.manifests.setVerifierStatus(m.manifest_id, 'failed');
      const third = await store.manifests.get(m.manifest_id);
      assert.deepEqual([third?.state, third?.state_reason, third?.verifier_status], ['quarantined', 'corrupt', 'failed']);
      assert.equal(second!.state, 'active', 'a copy handed out earlier is not changed under its holder');
      // A row deleted (or never committed) is not found, whatever the cache holds.
      await store.db.run('DELETE FROM manifests WHERE id = $1', [m.manifest_id]);
      assert.equal(await store.manifests.get(m.manifest_id), undefined);
      // The same id written again with other contents (an import after a rollback) is read afresh.
      const other = manifest('acme', { manifest_id: m.manifest_id, sha256: 'ef'.repeat(32), chunks: chunks.slice(0, 150), bytes_in: 15_000 });
      await store.manifests.insert(other);
      assert.deepEqual(await store.manifests.get(m.manifest_id), other);
    });

    test('lists filter by tenant, logical_ref and state, page by id, and aggregate by kind, contract and state', async () => {
      const ids: string[] = [];
      for (let k = 0; k < 3; k++) {
        const m = manifest('listing', { logical_ref: 'file://same' });
        ids.push(m.manifest_id);
        await store.manifests.insert(m);
      }
      const t = manifest('listing', { logical_ref: 'file://same', state: 'tombstoned' });
      await store.manifests.insert(t);
      const page = await store.manifests.list({ tenant: 'listing', logicalRef: 'file://same', states: ['active'], limit: 2 });
      assert.deepEqual(page.map((m) => m.manifest_id), ids.slice(0, 2));
      const rest = await store.manifests.list({ tenant: 'listing', logicalRef: 'file://same', states: ['active'], after: ids[1], limit: 2 });
      assert.deepEqual(rest.map((m) => m.manifest_id), ids.slice(2));
      const newest = await store.manifests.list({ tenant: 'listing', logicalRef: 'file://same', states: ['active'], limit: 2, newestFirst: true });
      assert.deepEqual(newest.map((m) => m.manifest_id), [ids[2], ids[1]]);
      assert.equal(page[0]!.chunk_count, 1);
      assert.equal('chunks' in page[0]!, false, 'list rows leave the chunk list out');
      const aggregates = await store.manifests.aggregates('listing');
      assert.deepEqual(aggregates.map((a) => [a.state, a.count]), [['active', 3], ['tombstoned', 1]]);
      assert.equal(aggregates[0]!.bytes_in, 15_000_000_000);
    });

    test('object pointers upsert, list by prefix with LIKE wildcards taken literally, and tombstone only the current version', async () => {
      for (const key of ['a%/1', 'a%/2', 'ab/3', 'a_/4']) await store.objects.upsert(objectRow('acme', key));
      const pct = await store.objects.list({ tenant: 'acme', bucket: 'b', prefix: 'a%', afterKey: '', includeTombstoned: false, limit: 10 });
      assert.deepEqual(pct.map((o) => o.object_key), ['a%/1', 'a%/2']);
      const underscore = await store.objects.list({ tenant: 'acme', bucket: 'b', prefix: 'a_', afterKey: '', includeTombstoned: false, limit: 10 });
      assert.deepEqual(underscore.map((o) => o.object_key), ['a_/4']);
      const current = objectRow('acme', 'ab/3');
      await store.objects.upsert(current);
      assert.equal(await store.objects.tombstone('acme', 'b', 'ab/3', newId('mf')), false, 'a stale manifest id does not tombstone');
      assert.equal(await store.objects.tombstone('acme', 'b', 'ab/3', current.manifest_id), true);
      const all = await store.objects.list({ tenant: 'acme', bucket: 'b', prefix: 'ab', afterKey: '', includeTombstoned: true, limit: 10 });
      assert.deepEqual(all.map((o) => o.state), ['tombstoned']);
      assert.equal((await store.objects.list({ tenant: 'acme', bucket: 'b', prefix: 'ab', afterKey: '', includeTombstoned: false, limit: 10 })).length, 0);
    });

    test('upload parts are replaced on re-upload and an upload moves between states once', async () => {
      const now = new Date().toISOString();
      const id = newId('up');
      await store.uploads.insert({ id, tenant: 'acme', bucket: 'b', object_key: 'k', state: 'open', mode: null, content_type: null, created_by: 'x', trace_id: 't', manifest_id: null, work_unit_id: null, created_at: now, updated_at: now });
      await store.uploads.putPart({ upload_id: id, part_number: 2, size: 5, sha256: 'a'.repeat(64), created_at: now });
      await store.uploads.putPart({ upload_id: id, part_number: 1, size: 7, sha256: 'b'.repeat(64), created_at: now });
      await store.uploads.putPart({ upload_id: id, part_number: 2, size: 9, sha256: 'c'.repeat(64), created_at: now });
      assert.deepEqual((await store.uploads.parts(id)).map((p) => [p.part_number, p.size]), [[1, 7], [2, 9]]);
      assert.equal(await store.uploads.transition(id, 'open', 'completing'), true);
      assert.equal(await store.uploads.transition(id, 'open', 'aborted'), false, 'a completing upload cannot be aborted');
      assert.equal(await store.uploads.transition(id, 'completing', 'completed', { manifest_id: 'mf_x' }), true);
      const done = await store.uploads.get(id);
      assert.deepEqual([done?.state, done?.manifest_id], ['completed', 'mf_x']);
    });
  });
}
