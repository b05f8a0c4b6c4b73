/**
 * Damages a stored chunk on purpose, wherever the filesystem backend keeps
 * it: inside a pack (the default layout) or as its own file (the old
 * layout). Tests of verification, restore tests and alerts use it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import type { ChunkCodec } from '../../src/svc/chunking/chunk-codec.ts';
import type { ChunkScope } from '../../src/svc/chunk-store/chunk-scope.ts';
import type { ChunkBackend } from '../../src/svc/chunk-store/create-chunk-store.ts';
import { FsPackFiles } from '../../src/svc/chunk-store/pack-files.ts';
import { PackedChunkStore } from '../../src/svc/chunk-store/packed-chunk-store.ts';

interface Victim {
  chunk_scope: string;
  id: string;
  codec: ChunkCodec;
}

/** The file holding the chunk and where its stored bytes start and end in it. */
export async function chunkPlace(backend: ChunkBackend, scope: string, id: string, codec: ChunkCodec): Promise<{ file: string; start: number; length: number }> {
  if (backend.kind !== 'filesystem') throw new TypeError('chunkPlace: filesystem backend only');
  const store = backend.store;
  if (store instanceof PackedChunkStore && store.packs instanceof FsPackFiles) {
    const loc = await store.locate(scope as ChunkScope, id, codec);
    if (loc) return { file: store.packs.pathOf(scope, loc.pack_id), start: loc.pack_offset, length: loc.stored_length };
  }
  const file = backend.files.pathOf(scope as ChunkScope, id, codec);
  return { file, start: 0, length: readFileSync(file).length };
}

/** Flips the bits of the stored byte `at` (counted inside the chunk's stored form). */
export async function flipStoredByte(backend: ChunkBackend, victim: Victim, at: number, mask = 0xff): Promise<void> {
  const place = await chunkPlace(backend, victim.chunk_scope, victim.id, victim.codec);
  const bytes = readFileSync(place.file);
  bytes[place.start + at] = bytes[place.start + at]! ^ mask;
  writeFileSync(place.file, bytes);
}

/** Makes the chunk missing: its index row (pack layout) or its file (old layout) goes. */
export async function removeStoredChunk(backend: ChunkBackend, victim: Victim): Promise<void> {
  if (backend.kind !== 'filesystem') throw new TypeError('removeStoredChunk: filesystem backend only');
  const store = backend.store;
  if (store instanceof PackedChunkStore) {
    await store.flush();
    if (await store.index.deleteEntry(victim.chunk_scope, victim.id, victim.codec)) return;
  }
  rmSync(backend.files.pathOf(victim.chunk_scope as ChunkScope, victim.id, victim.codec));
}
