/**
 * Pack bytes in an S3-compatible bucket: one PUT per pack instead of one per
 * chunk (decision 115). Keys: `<prefix>/<scope>/packs/<p0p1>/<pack-id>.pack`,
 * the filesystem layout under the prefix (pack-files.ts), beside the old
 * one-object-per-chunk keys, which stay readable.
 *
 * - write: a single PUT, acknowledged only once S3 stored the object durably;
 *   pack ids are random, so there is nothing to race on and no condition.
 * - read: a ranged GET (`Range: bytes=a-b`) of one entry's stored bytes.
 * - delete: HEAD (did it exist) + DELETE; garbage collection only.
 * - list: ListObjectsV2 under the scope's `packs/` prefix (GC's orphan sweep).
 *
 * Transport and permission failures are `unavailable`, never data loss.
 */
import { InFlight } from './in-flight.ts';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ChunkScope } from './chunk-scope.ts';
import { CHUNK_SCOPE_PATTERN } from './chunk-scope.ts';
import { PACK_ID_PATTERN, type PackFiles, packKeySegments } from './pack-files.ts';
import { type S3ConnectionOptions, createS3Client, isMissingKey, s3StatusOf, s3Unavailable } from './s3-client.ts';

export interface S3PackFilesOptions extends S3ConnectionOptions {
  bucket: string;
  prefix?: string;
  /** Counts PUTs (the storage benchmark reports them per GiB). */
  counters?: { puts: number };
}

export class S3PackFiles implements PackFiles {
  readonly bucket: string;
  readonly prefix: string;
  readonly counters: { puts: number };
  readonly #client: S3Client;
  readonly #inFlight = new InFlight();

  constructor(options: S3PackFilesOptions) {
    this.bucket = options.bucket;
    this.prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.#client = createS3Client(options);
    this.counters = options.counters ?? { puts: 0 };
  }

  keyOf(scope: ChunkScope | string, packId: string): string {
    return this.#key(packKeySegments(scope, packId).join('/'));
  }

  async write(scope: ChunkScope, packId: string, bytes: Uint8Array): Promise<void> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: this.keyOf(scope, packId), Body: bytes, ContentLength: bytes.byteLength, ContentType: 'application/octet-stream' });
    try {
      await this.#track(() => this.#client.send(command));
    } catch (err) {
      throw s3Unavailable('PutObject', err);
    }
    this.counters.puts++;
  }

  async read(scope: ChunkScope, packId: string, offset: number, length: number): Promise<Uint8Array | undefined> {
    if (length === 0) return new Uint8Array(0);
    const key = this.keyOf(scope, packId);
    try {
      return await this.#track(async () => {
        const response = await this.#client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, Range: `bytes=${offset}-${offset + length - 1}` }));
        return response.Body ? response.Body.transformToByteArray() : new Uint8Array(0);
      });
    } catch (err) {
      if (isMissingKey(err)) return undefined;
      // A range past the end of a (torn) pack: fewer bytes than asked, which the hash check reports as corrupt.
      if (s3StatusOf(err) === 416) return new Uint8Array(0);
      throw s3Unavailable('GetObject', err);
    }
  }

  /** One ranged GET for the whole run, copied into the targets (decision 199): one request where each chunk took one. */
  async readInto(scope: ChunkScope, packId: string, offset: number, targets: readonly Uint8Array[]): Promise<number | undefined> {
    const length = targets.reduce((n, t) => n + t.byteLength, 0);
    const bytes = await this.read(scope, packId, offset, length);
    if (bytes === undefined) return undefined;
    let at = 0;
    for (const t of targets) {
      if (at >= bytes.byteLength) break;
      const n = Math.min(t.byteLength, bytes.byteLength - at);
      t.set(bytes.subarray(at, at + n));
      at += n;
    }
    return at;
  }

  async delete(scope: ChunkScope, packId: string): Promise<boolean> {
    const key = this.keyOf(scope, packId);
    try {
      await this.#track(() => this.#client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
    } catch (err) {
      if (isMissingKey(err)) return false;
      throw s3Unavailable('HeadObject', err);
    }
    try {
      await this.#track(() => this.#client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
    } catch (err) {
      throw s3Unavailable('DeleteObject', err);
    }
    return true;
  }

  async list(scope: ChunkScope): Promise<Array<{ packId: string; size: number; modified: Date }>> {
    const out: Array<{ packId: string; size: number; modified: Date }> = [];
    for await (const o of this.#listAll(this.#key(`${scope}/packs/`))) {
      const file = o.Key?.slice(o.Key.lastIndexOf('/') + 1) ?? '';
      if (!file.endsWith('.pack')) continue;
      const packId = file.slice(0, -'.pack'.length);
      if (PACK_ID_PATTERN.test(packId)) out.push({ packId, size: o.Size ?? 0, modified: o.LastModified ?? new Date(0) });
    }
    return out;
  }

  /**
   * Every scope under the prefix (`Delimiter: '/'`). s3rver, the test
   * server, does not report common prefixes of nested keys; garbage
   * collection therefore also walks the scopes the pack index knows.
   */
  async scopes(): Promise<ChunkScope[]> {
    const base = this.prefix === '' ? '' : `${this.prefix}/`;
    const out: ChunkScope[] = [];
    let token: string | undefined;
    do {
      const page = await this.#list({ Prefix: base, Delimiter: '/', ContinuationToken: token });
      for (const p of page.CommonPrefixes ?? []) {
        const name = (p.Prefix ?? '').slice(base.length).replace(/\/$/, '');
        if (CHUNK_SCOPE_PATTERN.test(name)) out.push(name as ChunkScope);
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return out;
  }

  async close(): Promise<void> {
    await this.#inFlight.close();
    this.#client.destroy();
  }

  async *#listAll(prefix: string) {
    let token: string | undefined;
    do {
      const page = await this.#list({ Prefix: prefix, ContinuationToken: token });
      yield* page.Contents ?? [];
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async #list(params: { Prefix: string; Delimiter?: string; ContinuationToken?: string | undefined }) {
    try {
      return await this.#track(() => this.#client.send(new ListObjectsV2Command({ Bucket: this.bucket, ...params })));
    } catch (err) {
      throw s3Unavailable('ListObjectsV2', err);
    }
  }

  #key(relative: string): string {
    return this.prefix === '' ? relative : `${this.prefix}/${relative}`;
  }

  #track<T>(operation: () => Promise<T>): Promise<T> {
    return this.#inFlight.track(operation);
  }
}
