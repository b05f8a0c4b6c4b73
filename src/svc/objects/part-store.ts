/**
 * Where multipart part bytes wait for completion:
 * `<root>/<upload_id>/<part_number>.part`, written atomically (temporary
 * file, fsync, rename), so a re-uploaded part replaces the old one whole.
 * Parts are read back as streams at completion and removed after it or
 * after an abort.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

export const UPLOAD_ID = /^up_[0-9a-z]{26}$/;

/**
 * Where multipart parts wait for their upload's completion. Every svc process
 * behind one load balancer must see the same parts (a part may arrive at
 * another process than the completion), so with the S3 chunk backend parts
 * are staged in the same bucket ({@link S3PartStore}); the filesystem store
 * keeps them under the state dir of the process that received them.
 */
export interface PartStore {
  write(uploadId: string, partNumber: number, bytes: Uint8Array): Promise<void>;
  /**
   * Stores a part that arrives as a stream. If `source` fails part way (a raw body that does not match its
   * declaration), nothing is stored and an earlier version of the part stays as it was.
   */
  writeStream(uploadId: string, partNumber: number, source: AsyncIterable<Uint8Array>): Promise<void>;
  read(uploadId: string, partNumber: number): AsyncIterable<Uint8Array>;
  discard(uploadId: string): Promise<void>;
}

export class FsPartStore implements PartStore {
  readonly root: string;
  constructor(root: string) {
    this.root = path.resolve(root);
  }

  #dir(uploadId: string): string {
    if (!UPLOAD_ID.test(uploadId)) throw new TypeError('invalid upload id');
    return path.join(this.root, uploadId);
  }

  #file(uploadId: string, partNumber: number): string {
    if (!Number.isSafeInteger(partNumber) || partNumber < 1) throw new TypeError('invalid part number');
    return path.join(this.#dir(uploadId), `${partNumber}.part`);
  }

  async write(uploadId: string, partNumber: number, bytes: Uint8Array): Promise<void> {
    await this.writeStream(uploadId, partNumber, [bytes]);
  }

  async writeStream(uploadId: string, partNumber: number, source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<void> {
    const dir = this.#dir(uploadId);
    const target = this.#file(uploadId, partNumber);
    await fs.mkdir(dir, { recursive: true });
    // Written aside and renamed into place whole: a part that fails half way never replaces the one before it.
    const temp = path.join(dir, `.tmp-${randomBytes(8).toString('hex')}`);
    const handle = await fs.open(temp, 'wx', 0o600);
    try {
      for await (const piece of source) await handle.write(piece);
      await handle.sync();
    } catch (err) {
      await handle.close();
      await fs.rm(temp, { force: true });
      throw err;
    }
    await handle.close();
    await fs.rename(temp, target);
  }

  read(uploadId: string, partNumber: number): AsyncIterable<Uint8Array> {
    return createReadStream(this.#file(uploadId, partNumber), { highWaterMark: 1024 * 1024 });
  }

  async discard(uploadId: string): Promise<void> {
    await fs.rm(this.#dir(uploadId), { recursive: true, force: true });
  }
}
