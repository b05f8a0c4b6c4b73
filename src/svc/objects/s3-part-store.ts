/**
 * Multipart parts staged in the S3 bucket that holds the chunks, under
 * `<prefix>/uploads/<upload id>/<part number>.part`, so that every svc process
 * sharing the bucket can complete an upload whose parts other processes
 * received. A part is one PUT (replacing an earlier upload of the same part
 * number, as S3 itself does); completion streams the parts back in order and
 * discard deletes them. Parts are staging data, not chunks: the chunks of the
 * completed object are written through the chunk store as for any object.
 */
import { DeleteObjectCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { type S3ConnectionOptions, createS3Client, s3Unavailable } from '../chunk-store/s3-client.ts';
import { type PartStore, UPLOAD_ID } from './part-store.ts';

export interface S3PartStoreOptions extends S3ConnectionOptions {
  bucket: string;
  /** The chunk store's prefix; parts go under `<prefix>/uploads/`. */
  prefix?: string;
}

export class S3PartStore implements PartStore {
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #root: string;

  constructor(options: S3PartStoreOptions) {
    this.#client = createS3Client(options);
    this.#bucket = options.bucket;
    const prefix = (options.prefix ?? '').replace(/^\/+|\/+$/g, '');
    this.#root = prefix ? `${prefix}/uploads` : 'uploads';
  }

  #dir(uploadId: string): string {
    if (!UPLOAD_ID.test(uploadId)) throw new TypeError('invalid upload id');
    return `${this.#root}/${uploadId}/`;
  }

  #key(uploadId: string, partNumber: number): string {
    if (!Number.isSafeInteger(partNumber) || partNumber < 1) throw new TypeError('invalid part number');
    return `${this.#dir(uploadId)}${partNumber}.part`;
  }

  async write(uploadId: string, partNumber: number, bytes: Uint8Array): Promise<void> {
    try {
      await this.#client.send(new PutObjectCommand({ Bucket: this.#bucket, Key: this.#key(uploadId, partNumber), Body: bytes, ContentLength: bytes.byteLength, ContentType: 'application/octet-stream' }));
    } catch (err) {
      throw s3Unavailable('PutObject (multipart part)', err);
    }
  }

  /** Collected first (a part is at most `multipart.max_part_bytes`): an S3 PUT replaces the key, so it is sent only once the whole part arrived as declared. */
  async writeStream(uploadId: string, partNumber: number, source: AsyncIterable<Uint8Array>): Promise<void> {
    const pieces: Uint8Array[] = [];
    for await (const piece of source) pieces.push(piece);
    await this.write(uploadId, partNumber, Buffer.concat(pieces));
  }

  async *read(uploadId: string, partNumber: number): AsyncIterable<Uint8Array> {
    let body: AsyncIterable<Uint8Array>;
    try {
      const res = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: this.#key(uploadId, partNumber) }));
      body = res.Body as AsyncIterable<Uint8Array>;
    } catch (err) {
      throw s3Unavailable('GetObject (multipart part)', err);
    }
    yield* body;
  }

  async discard(uploadId: string): Promise<void> {
    const prefix = this.#dir(uploadId);
    try {
      for (let token: string | undefined; ; ) {
        const page = await this.#client.send(new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
        // One DELETE per part: uploads have few parts, and not every S3-compatible server supports DeleteObjects.
        await Promise.all((page.Contents ?? []).map((o) => this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: o.Key! }))));
        if (!page.IsTruncated) return;
        token = page.NextContinuationToken;
      }
    } catch (err) {
      throw s3Unavailable('DeleteObject (multipart parts)', err);
    }
  }

  close(): void {
    this.#client.destroy();
  }
}
