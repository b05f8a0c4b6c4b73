/**
 * The S3 client the S3 chunk store talks through, and the small amount of
 * S3 error interpretation it needs. Credentials never come from svc's config:
 * the standard AWS variables of the environment svc was given, else the SDK's
 * default provider chain (shared config/credentials files, SSO, web identity,
 * ECS/EC2 instance roles).
 */
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { SvcError } from '../errors.ts';

export type S3Credentials = NonNullable<S3ClientConfig['credentials']>;

export interface S3ConnectionOptions {
  region: string;
  /** A custom endpoint (MinIO, Ceph RGW, Cloudflare R2, …); absent: AWS S3 for the region. */
  endpoint?: string | undefined;
  /** `endpoint/bucket/key` URLs instead of `bucket.endpoint/key` (most self-hosted servers need it). */
  forcePathStyle?: boolean;
  /** Explicit credentials; absent: the SDK's default provider chain. */
  credentials?: S3Credentials | undefined;
}

/** Connecting must not hang a request forever: a dead endpoint fails within this. */
const CONNECT_TIMEOUT_MS = 5_000;
/** A socket idle this long mid-request is given up on (the SDK then retries). */
const SOCKET_IDLE_TIMEOUT_MS = 60_000;
/**
 * Upper bound of concurrent connections per client: a backstop only. Callers
 * bound their own concurrency (ingest keeps 8 chunks in flight, rehydration
 * reads 8 ahead per stream).
 */
const MAX_SOCKETS = 64;

/** A client with keep-alive connections (a TLS handshake per chunk would dominate small-chunk latency). */
export function createS3Client(options: S3ConnectionOptions): S3Client {
  const agent = { keepAlive: true, maxSockets: MAX_SOCKETS };
  return new S3Client({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    forcePathStyle: options.forcePathStyle ?? false,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    requestHandler: { connectionTimeout: CONNECT_TIMEOUT_MS, socketTimeout: SOCKET_IDLE_TIMEOUT_MS, httpAgent: agent, httpsAgent: agent },
  });
}

/**
 * Static credentials from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`
 * (/ `AWS_SESSION_TOKEN`) of `env`, or undefined to let the SDK's default
 * chain decide. svc passes its injected environment here, so a process (or a
 * test) that runs svc with its own environment gets the same behaviour as
 * the SDK's `fromEnv` over `process.env`.
 */
export function credentialsFromEnv(env: Record<string, string | undefined>): S3Credentials | undefined {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) return undefined;
  return env.AWS_SESSION_TOKEN ? { accessKeyId, secretAccessKey, sessionToken: env.AWS_SESSION_TOKEN } : { accessKeyId, secretAccessKey };
}

/** The HTTP status of a failed S3 call, when the server answered. */
export function s3StatusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  return (err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

/**
 * The key does not exist. A missing *bucket* is also a 404, but a
 * misconfiguration, not a missing chunk: GET names it (`NoSuchBucket`); HEAD
 * has no body to tell them apart, which is harmless — the PUT or GET that
 * follows reports it, and so does the readiness probe.
 */
export function isMissingKey(err: unknown): boolean {
  return s3StatusOf(err) === 404 && !(err instanceof Error && err.name === 'NoSuchBucket');
}

/**
 * A failed S3 call as svc reports it: `unavailable` (503, retryable) — the
 * chunk store could not be reached or refused the request, which says
 * nothing about the chunk itself. Carries the S3 error name and status, never
 * a key or a credential.
 */
export function s3Unavailable(operation: string, err: unknown): SvcError {
  if (err instanceof SvcError) return err; // already says what went wrong (a closed store)
  // Transport failures are plain Errors with an errno code (ECONNREFUSED, …): that code is the useful name.
  const code = (err as { code?: unknown } | null)?.code;
  const name = err instanceof Error && err.name !== 'Error' ? err.name : typeof code === 'string' ? code : 'Error';
  const status = s3StatusOf(err);
  const detail = `${name}${status === undefined ? '' : ` ${status}`}`;
  return new SvcError('unavailable', `chunk store request failed (S3 ${operation}: ${detail})`, {
    details: { operation, s3_error: name, ...(status === undefined ? {} : { http_status: status }) },
    cause: err,
  });
}
