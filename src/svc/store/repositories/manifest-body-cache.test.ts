import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ByteManifest } from '../../manifests/manifest.ts';
import { ManifestBodyCache, MIN_CACHED_CHUNKS } from './manifest-body-cache.ts';

function body(id: string, chunks: number, sha = 'ab'.repeat(32)): ByteManifest {
  return {
    manifest_id: id, sha256: sha, created_at: '2026-01-01T00:00:00.000Z',
    chunks: Array.from({ length: chunks }, (_, i) => ({ id: `ch_${String(i).padStart(64, '0')}`, offset: i, length: 1, stored_length: 1, codec: 'raw' as const })),
  } as unknown as ByteManifest;
}
const fingerprint = (b: ByteManifest) => ({ sha256: b.sha256, chunk_count: b.chunks.length, created_at: b.created_at });

describe('parsed manifest bodies', () => {
  it('keeps only manifests large enough to be worth it, and hands back what the row still matches', () => {
    const cache = new ManifestBodyCache(1_000);
    const small = body('mf_small', MIN_CACHED_CHUNKS - 1);
    assert.equal(cache.remember('mf_small', small), small);
    assert.equal(cache.get('mf_small', fingerprint(small)), undefined);
    assert.ok(!Object.isFrozen(small));
    const large = body('mf_large', MIN_CACHED_CHUNKS);
    cache.remember('mf_large', large);
    assert.ok(Object.isFrozen(large) && Object.isFrozen(large.chunks));
    assert.equal(cache.get('mf_large', fingerprint(large)), large);
    assert.equal(cache.get('mf_large', { ...fingerprint(large), sha256: 'cd'.repeat(32) }), undefined, 'another body under the same id');
    assert.equal(cache.get('mf_large', fingerprint(large)), undefined, 'and the stale entry is gone');
    assert.deepEqual(cache.size, { manifests: 0, chunkRefs: 0 });
  });

  it('is bounded by chunk references, least recently used out first', () => {
    const cache = new ManifestBodyCache(400);
    const bodies = [0, 1, 2, 3].map((i) => body(`mf_${i}`, 100));
    for (const b of bodies.slice(0, 3)) cache.remember(b.manifest_id, b);
    assert.ok(cache.get('mf_0', fingerprint(bodies[0]!)), 'mf_0 used: now the most recent');
    cache.remember('mf_3', bodies[3]!);
    cache.remember('mf_4', body('mf_4', 100));
    assert.equal(cache.size.chunkRefs, 400);
    assert.equal(cache.get('mf_1', fingerprint(bodies[1]!)), undefined, 'the least recently used went first');
    assert.ok(cache.get('mf_0', fingerprint(bodies[0]!)));
    assert.equal(cache.remember('mf_huge', body('mf_huge', 201)).manifest_id, 'mf_huge');
    assert.equal(cache.get('mf_huge', fingerprint(body('mf_huge', 201))), undefined, 'a body over half the bound is never kept');
  });
});
