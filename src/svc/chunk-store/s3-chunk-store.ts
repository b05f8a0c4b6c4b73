/**
 * S3-compatible chunk store (AWS S3, MinIO, Ceph RGW, Cloudflare R2, …).
 *
 * Keys: `<prefix>/<scope>/<h0h1>/<h2h3>/<sha256-hex>.<raw|zst>` — the
 * filesystem store's layout under a prefix (chunk-key.ts), so a chunk
 * directory synced into the bucket is a valid S3 store.
 *
 * The {@link ChunkStore} contract, and how S3 meets it
 * (docs/decisions/031-s3-chunk-store.md):
 * - atomic put: an S3 PUT is all-or-nothing; readers see no object or the
 *   whole object. There are no temporary objects to sweep.
 * - put never changes an existing key: a HEAD first (a re-put of an existing
 *   chunk uploads nothing), then a conditional PUT (`If-None-Match: *`) so
 *   two writers racing on a new chunk produce exactly one `created`. A server
 *   that ignores the condition (s3rver, old gateways) overwrites the key with
 *   bytes that decode to the same chunk; only the `created` accounting of
 *   that race can then count twice.
 * - verified reads: the same decode-and-hash check as the filesystem store
 *   (verify-chunk.ts); missing → `rehydration_failed` (`missing`).
 * - `flush()` does nothing: S3 acknowledges a PUT only once the object is
 *   durably stored, and reads after that acknowledgement see it (S3's strong
 *   read-after-write consistency; compatible servers must provide the same).
 *
 * Transport and permission failures are `unavailable` (503, retryable), never
 * `rehydration_failed`: they say nothing about the chunk.
 */
import { InFlight } from './in-flight.ts';
import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ChunkCodec } from '../chunking/chunk-codec.ts';
import { chunkKeySegments, type ListedChunk, parseChunkKey } from './chunk-key.ts';
import type { ChunkScope } from './chunk-scope.ts';
import { CHUNK_SCOPE_PATTERN } from './chunk-scope.ts';
import type { ChunkPutResult, ChunkStore, ChunkWriter, StoredChunkInfo } from './chunk-store.ts';
import { type S3ConnectionOptions, createS3Client, isMissingKey, s3StatusOf, s3Unavailable } from './s3-client.ts';
import { chunkReadFailure, decodeVerifiedChunk } from './verify-chunk.ts';

export interface S3ChunkStoreOptions extends S3ConnectionOptions {
  bucket: string;
  /** Key prefix under which the scopes live; leading and trailing slashes are ignored; empty: the bucket root. */
  prefix?: string;
}

/**
 * How often a conditional PUT answered 409 (another conditional write of the
 * same key in flight, which S3 asks callers to retry) is looked at again.
 */
const MAX_CONDITIONAL_CONFLICTS = 3;

export class S3ChunkStore implements ChunkStore {
  readonly bucket: string;
  /** The normalised prefix ('' for the bucket root). */
  readonly prefix: string;
  readonly #client: S3Client;
  /** S3 operations under way (a close lets them finish first). */
  readonly #inFlight = new InFlight();

  constructor(options: S3ChunkStoreOptions) {
    if (options.bucket.length === 0) throw new TypeError('an S3 chunk store needs a bucket');
    this.bucket = options.bucket;
    this.prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.#client = createS3Client(options);
  }

  /** `s3://bucket/prefix`, for readiness and operators. */
  get location(): string {
    return `s3://${this.bucket}/${this.prefix}`;
  }

  /** Object key of one stored form; exposed for operators' tooling and tests that damage chunks on purpose. */
  keyOf(scope: ChunkScope, id: string, codec: ChunkCodec): string {
    return this.#key(chunkKeySegments(scope, id, codec).join('/'));
  }

  /** Every put is written on its own: the store is its own writer. */
  openWriter(): ChunkWriter {
    return this;
  }

  async stat(scope: ChunkScope, id: string, codec?: ChunkCodec): Promise<StoredChunkInfo | undefined> {
    const candidates: ChunkCodec[] = codec ? [codec] : ['zstd', 'raw'];
    for (const candidate of candidates) {
      const length = await this.#head(this.keyOf(scope, id, candidate));
      if (length !== undefined) return { codec: candidate, storedLength: length };
    }
    return undefined;
  }

  /**
   * Whether `scope` holds any chunk object: the pack store skips this layout
   * for scopes that do not. One listing request: shard prefixes (two hex
   * digits) sort before `packs/`, so the first key under the scope is a
   * chunk object if there is any. (No `Delimiter`: some S3-compatible
   * servers do not apply it to nested keys.)
   */
  async holdsScope(scope: ChunkScope): Promise<boolean> {
    if (!CHUNK_SCOPE_PATTERN.test(scope)) throw new TypeError(`invalid chunk scope ${JSON.stringify(scope)}`);
    const base = this.#key(`${scope}/`);
    let page;
    try {
      // The first page (the server's default size) rather than MaxKeys: 1, which s3rver, the test server, fails on.
      page = await this.#track(() => this.#client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: base })));
    } catch (err) {
      throw s3Unavailable('ListObjectsV2', err);
    }
    const first = page.Contents?.[0]?.Key;
    return first !== undefined && /^[0-9a-f]{2}\//.test(first.slice(base.length));
  }

  /** Every chunk object of the old layout under the prefix (`svc chunks migrate`), one listing page at a time; pack objects are skipped. */
  async *listChunks(): AsyncGenerator<ListedChunk> {
    const base = this.#key('');
    let token: string | undefined;
    do {
      let page;
      try {
        page = await this.#track(() => this.#client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: base, ContinuationToken: token })));
      } catch (err) {
        throw s3Unavailable('ListObjectsV2', err);
      }
      for (const o of page.Contents ?? []) {
        const parsed = o.Key ? parseChunkKey(o.Key.slice(base.length)) : undefined;
        if (parsed) yield { ...parsed, size: o.Size ?? 0 };
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async put(scope: ChunkScope, id: string, codec: ChunkCodec, data: Uint8Array): Promise<ChunkPutResult> {
    const key = this.keyOf(scope, id, codec);
    for (let conflicts = 0; ; conflicts++) {
      if ((await this.#head(key)) !== undefined) return { created: false };
      try {
        const command = new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: data, ContentLength: data.byteLength, ContentType: 'application/octet-stream', IfNoneMatch: '*' });
        await this.#track(() => this.#client.send(command));
        return { created: true };
      } catch (err) {
        const status = s3StatusOf(err);
        if (status === 412) return { created: false }; // another writer created it since our HEAD
        if (status === 409 && conflicts < MAX_CONDITIONAL_CONFLICTS) continue;
        throw s3Unavailable('PutObject', err);
      }
    }
  }

  async get(scope: ChunkScope, id: string, codec: ChunkCodec, rawLengthHint?: number): Promise<Uint8Array> {
    return decodeVerifiedChunk(id, codec, await this.#readOrFail(scope, id, codec), rawLengthHint);
  }

  readStored(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<Uint8Array> {
    return this.#readOrFail(scope, id, codec);
  }

  /**
   * S3's DELETE succeeds whether or not the key exists, so a HEAD first
   * answers "did it exist". Garbage collection is the only caller.
   */
  async delete(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<boolean> {
    const key = this.keyOf(scope, id, codec);
    if ((await this.#head(key)) === undefined) return false;
    try {
      await this.#track(() => this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
    } catch (err) {
      throw s3Unavailable('DeleteObject', err);
    }
    return true;
  }

  /** Nothing to do: an acknowledged S3 PUT is already durable (see the module comment). */
  async flush(): Promise<void> {}

  /**
   * Readiness probe: the bucket accepts a write, returns the same bytes and
   * lets them be deleted, under `<prefix>/.probe-<random>` (a name no scope
   * can take). Throws with the reason otherwise.
   */
  async probe(): Promise<void> {
    const key = this.#key(`.probe-${randomBytes(6).toString('hex')}`);
    const body = new TextEncoder().encode('probe');
    let back: string;
    try {
      await this.#track(() => this.#client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentLength: body.byteLength })));
      back = new TextDecoder().decode(await this.#getBytes(key));
      await this.#track(() => this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
    } catch (err) {
      throw s3Unavailable('probe', err);
    }
    if (back !== 'probe') throw new Error('chunk store probe read back different bytes');
  }

  /**
   * Lets the requests under way finish (read-ahead of an abandoned
   * rehydration included), then closes the keep-alive connections. Later
   * calls fail with `unavailable`.
   */
  async close(): Promise<void> {
    await this.#inFlight.close();
    this.#client.destroy();
  }

  #key(relative: string): string {
    return this.prefix === '' ? relative : `${this.prefix}/${relative}`;
  }

  /** Stored length of `key`, or undefined when there is no such object. */
  async #head(key: string): Promise<number | undefined> {
    try {
      const head = await this.#track(() => this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (isMissingKey(err)) return undefined;
      throw s3Unavailable('HeadObject', err);
    }
  }

  async #readOrFail(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<Uint8Array> {
    const key = this.keyOf(scope, id, codec);
    try {
      return await this.#getBytes(key);
    } catch (err) {
      if (isMissingKey(err)) throw chunkReadFailure(id, 'missing', err);
      throw s3Unavailable('GetObject', err);
    }
  }

  /** The whole body of `key`, the download counted as in flight until its last byte. */
  #getBytes(key: string): Promise<Uint8Array> {
    return this.#track(async () => {
      const response = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return response.Body ? response.Body.transformToByteArray() : new Uint8Array(0);
    });
  }

  #track<T>(operation: () => Promise<T>): Promise<T> {
    return this.#inFlight.track(operation);
  }
}
