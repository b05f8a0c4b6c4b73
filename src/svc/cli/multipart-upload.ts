/**
 * Uploads a file through the object gateway's multipart API, one part at a
 * time (the file is never read whole into memory), then completes it with
 * the digests the server returned. Used by `svc execute` for files larger
 * than the inline limit.
 */
import fs from 'node:fs/promises';
import type { SvcClient } from './client.ts';

export const DEFAULT_PART_BYTES = 8 * 1024 * 1024;

export interface MultipartUploadOptions {
  tenant?: string | undefined;
  bucket: string;
  key: string;
  mode?: string | undefined;
  partBytes?: number;
  onProgress?: (bytesSent: number) => void;
}

export async function uploadFileMultipart(client: SvcClient, file: string, o: MultipartUploadOptions): Promise<unknown> {
  const partBytes = o.partBytes ?? DEFAULT_PART_BYTES;
  const created = await client.json<{ upload_id: string }>('POST', '/v1/s3/multipart/create', {
    bucket: o.bucket,
    key: o.key,
    ...(o.tenant ? { tenant: o.tenant } : {}),
    ...(o.mode ? { mode: o.mode } : {}),
  });
  const handle = await fs.open(file, 'r');
  const parts: Array<{ part_number: number; sha256: string }> = [];
  try {
    const buffer = Buffer.alloc(partBytes);
    let sent = 0;
    for (let partNumber = 1; ; partNumber++) {
      const { bytesRead } = await handle.read(buffer, 0, partBytes, null);
      if (bytesRead === 0 && partNumber > 1) break;
      const part = await client.json<{ sha256: string }>('POST', '/v1/s3/multipart/part', {
        upload_id: created.upload_id,
        part_number: partNumber,
        body_base64: buffer.subarray(0, bytesRead).toString('base64'),
      });
      parts.push({ part_number: partNumber, sha256: part.sha256 });
      sent += bytesRead;
      o.onProgress?.(sent);
      if (bytesRead < partBytes) break;
    }
  } catch (err) {
    await client.json('POST', '/v1/s3/multipart/abort', { upload_id: created.upload_id }).catch(() => undefined);
    throw err;
  } finally {
    await handle.close();
  }
  return client.json('POST', '/v1/s3/multipart/complete', { upload_id: created.upload_id, parts });
}
