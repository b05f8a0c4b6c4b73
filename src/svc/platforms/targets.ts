/**
 * The deployment targets svc supports (spec: platform routes), defined once:
 * REST, the CLI and readiness read this table. `targetInUse` derives the
 * current target from the loaded configuration, never from a request.
 */
import { existsSync } from 'node:fs';
import type { SvcConfig } from '../config/schema.ts';

export const TARGET_IDS = ['embedded', 'postgresql', 's3', 'cluster', 'container'] as const;
export type TargetId = (typeof TARGET_IDS)[number];

export interface TargetDescription {
  id: TargetId;
  title: string;
  metadata: 'sqlite' | 'postgresql' | 'either';
  chunks: 'filesystem' | 's3' | 'either';
  processes: 'one' | 'several';
  description: string;
  requires: string[];
}

export const TARGETS: readonly TargetDescription[] = [
  {
    id: 'embedded',
    title: 'Embedded: SQLite + filesystem chunks',
    metadata: 'sqlite',
    chunks: 'filesystem',
    processes: 'one',
    description: 'One svc process; the state directory holds the SQLite database (WAL, synchronous=FULL) and the chunk store.',
    requires: ['a local volume with fsync and hard links (svc platform validate --target embedded)'],
  },
  {
    id: 'postgresql',
    title: 'PostgreSQL metadata + filesystem chunks',
    metadata: 'postgresql',
    chunks: 'filesystem',
    processes: 'one',
    description: 'Work units, plans, manifests and the ledger in PostgreSQL; chunks on a local or mounted volume.',
    requires: ['storage.database_url = postgres://…', 'PostgreSQL 14 or newer', 'session-preserving connections (advisory locks)'],
  },
  {
    id: 's3',
    title: 'S3-compatible chunk storage',
    metadata: 'either',
    chunks: 's3',
    processes: 'one',
    description: 'Chunks in an S3-compatible bucket (AWS S3, MinIO, Ceph RGW, R2); metadata in SQLite or PostgreSQL.',
    requires: ['storage.chunk_backend = s3', 'storage.s3.bucket', 'credentials from the AWS environment or provider chain'],
  },
  {
    id: 'cluster',
    title: 'Several svc processes on PostgreSQL + S3',
    metadata: 'postgresql',
    chunks: 's3',
    processes: 'several',
    description: 'Any number of svc processes sharing one PostgreSQL and one bucket; the ledger chain is serialised by an advisory lock, chunk first writes by conditional create.',
    requires: ['the postgresql requirements', 'the s3 requirements', 'conditional create (If-None-Match: *) honoured by the bucket'],
  },
  {
    id: 'container',
    title: 'Container',
    metadata: 'either',
    chunks: 'either',
    processes: 'one',
    description: 'svc in a container with the state directory on a mounted volume and configuration from SVC_* variables. No image is published yet: build one from this repository (Node 24, `npm ci`, `npm start`).',
    requires: ['the state directory on a persistent volume', 'server.host 0.0.0.0 (or the container address) to be reachable'],
  },
];

export function isPostgresUrl(url: string | undefined): boolean {
  return url !== undefined && /^postgres(ql)?:\/\//.test(url);
}

/** Running inside a container runtime (Docker, Podman, Kubernetes). */
export function inContainer(env: Record<string, string | undefined>): boolean {
  return env.container !== undefined || env.KUBERNETES_SERVICE_HOST !== undefined || existsSync('/.dockerenv') || existsSync('/run/.containerenv');
}

/** The storage target the configuration selects (container is reported separately: it wraps any of them). */
export function targetInUse(config: Readonly<SvcConfig>): Exclude<TargetId, 'container'> {
  const pg = isPostgresUrl(config.storage.database_url);
  if (config.storage.chunk_backend === 's3') return pg ? 'cluster' : 's3';
  return pg ? 'postgresql' : 'embedded';
}
