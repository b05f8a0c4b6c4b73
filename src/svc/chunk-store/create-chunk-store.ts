/**
 * Builds the chunk store the configuration asks for (`storage.chunk_backend`):
 * the filesystem store under `storage.chunk_dir`, or the S3 store on
 * `storage.s3`. The result carries what the service needs around the store
 * itself: where it is (readiness detail), a readiness probe, and shutdown.
 * The caller puts its {@link VerifiedChunkCache} in front.
 *
 * The S3 modules (and the AWS SDK under them: ~0.3–0.6 s and ~6 MB of heap
 * to load) are imported only when the S3 backend is configured.
 */
import path from 'node:path';
import type { SvcConfig } from '../config/schema.ts';
import { SvcError } from '../errors.ts';
import type { Db } from '../store/db.ts';
import { ChunkPackRepository } from '../store/repositories/chunk-packs.ts';
import { FsChunkStore } from './fs-chunk-store.ts';
import { FsPackFiles } from './pack-files.ts';
import { PackedChunkStore } from './packed-chunk-store.ts';
import type { S3ChunkStore } from './s3-chunk-store.ts';

interface ChunkBackendOperations {
  /** Where the chunks are: a directory, or `s3://bucket/prefix`. */
  readonly location: string;
  /** A write, read-back and delete round trip; throws with the reason when the store is unusable. */
  probe(): Promise<void>;
  /** Releases connections (S3); nothing for the filesystem. */
  close(): Promise<void>;
}

/** The configured store, uncached, tagged with its kind so callers may reach backend-specific tooling. */
export type ChunkBackend = ChunkBackendOperations &
  (
    | { readonly kind: 'filesystem'; readonly store: FsChunkStore | PackedChunkStore; readonly files: FsChunkStore }
    | { readonly kind: 's3'; readonly store: S3ChunkStore | PackedChunkStore; readonly objects: S3ChunkStore }
  );

export interface CreateChunkStoreOptions {
  /** The environment svc runs with; the S3 backend reads AWS credentials from it (default `process.env`). */
  env?: Record<string, string | undefined>;
  /**
   * The database holding the pack index (migration 117). Without it, or with
   * `storage.chunk_layout: files`, chunks are stored one file (object) each.
   */
  db?: Db;
}

/**
 * The chunk store for `config`. For the filesystem backend this sweeps
 * temporary files left by a crash, so call it before any writer starts.
 */
export async function createChunkStore(config: Readonly<SvcConfig>, stateDir: string, options: CreateChunkStoreOptions = {}): Promise<ChunkBackend> {
  const storage = config.storage;
  if (storage.chunk_backend === 's3') {
    const s3 = storage.s3;
    // The loader refuses this configuration already; a hand-built config gets the same message.
    if (!s3?.bucket) throw new SvcError('invalid_request', 'storage.s3.bucket is required when storage.chunk_backend is s3 (env SVC_S3_BUCKET)');
    const [{ credentialsFromEnv }, { S3ChunkStore }, { S3PackFiles }] = await Promise.all([import('./s3-client.ts'), import('./s3-chunk-store.ts'), import('./s3-pack-files.ts')]);
    const connection = {
      bucket: s3.bucket,
      prefix: s3.prefix,
      region: s3.region,
      endpoint: s3.endpoint,
      forcePathStyle: s3.force_path_style,
      credentials: credentialsFromEnv(options.env ?? process.env),
    };
    const objects = new S3ChunkStore(connection);
    if (!options.db || storage.chunk_layout !== 'packs') {
      return { kind: 's3', store: objects, objects, location: objects.location, probe: () => objects.probe(), close: () => objects.close() };
    }
    const packs = new S3PackFiles(connection);
    const store = new PackedChunkStore({ packs, index: new ChunkPackRepository(options.db), legacy: objects, packTargetBytes: storage.pack_target_bytes, frameCodec: storage.frame_codec, frameTargetBytes: storage.frame_target_bytes });
    return {
      kind: 's3',
      store,
      objects,
      location: objects.location,
      probe: () => objects.probe(),
      close: async () => {
        await Promise.all([objects.close(), packs.close()]);
      },
    };
  }
  const files = new FsChunkStore({ root: path.resolve(stateDir, storage.chunk_dir ?? 'chunks') });
  // Leftovers of a crash mid-write (chunk files and packs); safe because no writer runs yet.
  await files.sweepTemporaryFiles();
  const store = options.db && storage.chunk_layout === 'packs'
    ? new PackedChunkStore({ packs: new FsPackFiles({ root: files.root }), index: new ChunkPackRepository(options.db), legacy: files, packTargetBytes: storage.pack_target_bytes, frameCodec: storage.frame_codec, frameTargetBytes: storage.frame_target_bytes })
    : files;
  return { kind: 'filesystem', store, files, location: files.root, probe: () => files.probe(), close: async () => {} };
}
