/**
 * Is this S3-compatible bucket usable by the S3 chunk store? Bucket
 * reachable (HeadBucket); a probe object written, read back and deleted; and
 * whether conditional create (`If-None-Match: *`) is honoured — the store
 * relies on it to tell racing first writes apart (docs/decisions/031), which
 * matters most when several svc processes share the bucket.
 */
import { randomBytes } from 'node:crypto';
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { createS3Client, credentialsFromEnv, s3StatusOf } from '../chunk-store/s3-client.ts';
import { type PlatformCheck, runCheck, skippedCheck } from './platform-check.ts';

export interface S3Target {
  bucket: string;
  prefix: string;
  region: string;
  endpoint?: string | undefined;
  forcePathStyle: boolean;
}

function s3Reason(err: unknown): string {
  const status = s3StatusOf(err);
  const name = err instanceof Error ? err.name : 'error';
  return status === undefined ? `${name}: ${err instanceof Error ? err.message : String(err)}` : `${name} (HTTP ${status})`;
}

export async function validateS3(t: S3Target, env: Record<string, string | undefined>, conditionalCreateRequired: boolean): Promise<PlatformCheck[]> {
  const client = createS3Client({ region: t.region, endpoint: t.endpoint, forcePathStyle: t.forcePathStyle, credentials: credentialsFromEnv(env) });
  const prefix = t.prefix.replace(/^\/+|\/+$/g, '');
  const key = `${prefix === '' ? '' : `${prefix}/`}.platform-probe-${randomBytes(6).toString('hex')}`;
  const where = `s3://${t.bucket}/${prefix}${t.endpoint ? ` at ${t.endpoint}` : ''}`;
  const checks: PlatformCheck[] = [];
  try {
    const reachable = await runCheck('s3.bucket_reachable', async () => {
      try {
        await client.send(new HeadBucketCommand({ Bucket: t.bucket }));
      } catch (err) {
        throw new Error(`bucket ${t.bucket} is not reachable: ${s3Reason(err)}`);
      }
      return `${where} answers`;
    });
    checks.push(reachable);
    if (!reachable.ok) {
      checks.push(skippedCheck('s3.write_read_delete', 'the bucket is not reachable'), skippedCheck('s3.conditional_create', 'the bucket is not reachable', conditionalCreateRequired));
      return checks;
    }
    const body = randomBytes(64);
    const roundTrip = await runCheck('s3.write_read_delete', async () => {
      try {
        await client.send(new PutObjectCommand({ Bucket: t.bucket, Key: key, Body: body, ContentLength: body.length }));
        const got = await client.send(new GetObjectCommand({ Bucket: t.bucket, Key: key }));
        if (!Buffer.from(await got.Body!.transformToByteArray()).equals(body)) throw new Error('the probe object read back different bytes');
        await client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: key }));
      } catch (err) {
        throw err instanceof Error && err.message.startsWith('the probe') ? err : new Error(`probe round trip failed: ${s3Reason(err)}`);
      }
      try {
        await client.send(new GetObjectCommand({ Bucket: t.bucket, Key: key }));
      } catch (err) {
        if (s3StatusOf(err) === 404) return `probe object written, read back and deleted under ${where}`;
        throw new Error(`reading the deleted probe failed unexpectedly: ${s3Reason(err)}`);
      }
      throw new Error('the deleted probe object can still be read');
    });
    checks.push(roundTrip);
    if (!roundTrip.ok) {
      checks.push(skippedCheck('s3.conditional_create', 'the probe round trip failed', conditionalCreateRequired));
      return checks;
    }
    checks.push(
      await runCheck(
        's3.conditional_create',
        async () => {
          await client.send(new PutObjectCommand({ Bucket: t.bucket, Key: key, Body: body, ContentLength: body.length, IfNoneMatch: '*' }));
          try {
            await client.send(new PutObjectCommand({ Bucket: t.bucket, Key: key, Body: body, ContentLength: body.length, IfNoneMatch: '*' }));
          } catch (err) {
            const status = s3StatusOf(err);
            if (status === 412 || status === 409) return `a second create of an existing key is refused (HTTP ${status})`;
            throw new Error(`conditional create failed unexpectedly: ${s3Reason(err)}`);
          }
          throw new Error('If-None-Match: * on an existing key was accepted: the server ignores conditional create, so racing first writes of a chunk cannot be told apart');
        },
        conditionalCreateRequired,
      ),
    );
    return checks;
  } finally {
    try {
      await client.send(new DeleteObjectCommand({ Bucket: t.bucket, Key: key }));
    } catch {
      // Reported by the round-trip check when it matters; cleanup is best effort.
    }
    client.destroy();
  }
}
