/**
 * A real S3-compatible server for tests: s3rver (npm, pure JavaScript,
 * filesystem-backed) in this process on 127.0.0.1 and a free port, with one
 * bucket. Not a fake: it speaks the S3 REST protocol (XML errors, 404
 * `NoSuchKey`/`NoSuchBucket`, access key ids), so requests go through the AWS
 * SDK exactly as in production.
 *
 * What it does not do: it ignores `If-None-Match` on PUT (no conditional
 * writes; tests that need them are skipped against it, with the reason), and
 * it checks only the access key id of a SigV4 request, not the signature.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DeleteObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/** s3rver's fixed credentials; the SDK signs with them and s3rver verifies the signature. */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export const S3RVER_IGNORES_CONDITIONAL_PUT = 's3rver ignores If-None-Match on PUT, so racing first writes cannot be told apart there (docs/decisions/031-s3-chunk-store.md)';

export interface S3TestServer {
  endpoint: string;
  bucket: string;
  region: string;
  /** A client of its own, for looking at and damaging objects behind the store's back. */
  client: S3Client;
  /** Every key under `prefix`, sorted. */
  listKeys(prefix: string): Promise<string[]>;
  /** Replaces (or creates) one object. */
  putObject(key: string, body: Uint8Array): Promise<void>;
  deleteObject(key: string): Promise<void>;
  /** The environment that points svc at this server. */
  svcEnv(prefix: string): Record<string, string>;
  close(): Promise<void>;
}

export async function startS3TestServer(bucket = 'svc-chunk-test'): Promise<S3TestServer> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'svc-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const region = 'us-east-1';
  const client = new S3Client({ region, endpoint, forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
  return {
    endpoint,
    bucket,
    region,
    client,
    async listKeys(prefix) {
      const keys: string[] = [];
      let token: string | undefined;
      do {
        const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
        for (const o of page.Contents ?? []) if (o.Key) keys.push(o.Key);
        token = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (token);
      return keys.sort();
    },
    async putObject(key, body) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    async deleteObject(key) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    svcEnv(prefix) {
      return {
        SVC_CHUNK_BACKEND: 's3',
        SVC_S3_BUCKET: bucket,
        SVC_S3_PREFIX: prefix,
        SVC_S3_REGION: region,
        SVC_S3_ENDPOINT: endpoint,
        SVC_S3_FORCE_PATH_STYLE: 'true',
        AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
        AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
      };
    },
    async close() {
      client.destroy();
      // Keep-alive sockets of other clients would hold close() open.
      server.httpServer.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
