/**
 * What `svc init` writes: every setting spelled out with its default, so an
 * operator sees (and can edit) each knob without reading the source. Optional
 * sections are filled too: rollout and guardrail with the defaults the
 * services use when the section is absent, reports.estimates with the
 * documented constants, nested objects (storage.s3) from their schema defaults. Keys without a default (storage.s3
 * bucket and endpoint, storage.database_url) are named in the file's header instead.
 */
import path from 'node:path';
import type { TSchema } from 'typebox';
import { Value } from 'typebox/value';
import { DEFAULT_ESTIMATE_CONSTANTS } from '../reports/estimate-constants.ts';
import { DEFAULT_ROLLOUT_CONFIG } from '../rollout/canary.ts';
import { DEFAULT_GUARDRAIL_CONFIG } from '../rollout/slo-guardrail.ts';
import { SvcConfig } from './schema.ts';

type Schemaish = { type?: string; properties?: Record<string, Schemaish> };

/** Creates every nested object section the schema describes, so `Value.Default` can fill its fields. */
function withSections(schema: Schemaish, value: Record<string, unknown>): Record<string, unknown> {
  for (const [key, sub] of Object.entries(schema.properties ?? {})) {
    if (sub.type !== 'object' || sub.properties === undefined) continue;
    const current = value[key];
    const section = current !== null && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>) : {};
    value[key] = withSections(sub, section);
  }
  return value;
}

export function initConfigDocument(stateDir: string): SvcConfig {
  const raw: Record<string, unknown> = {
    state_dir: stateDir,
    storage: { chunk_dir: path.join(stateDir, 'chunks') },
    rollout: structuredClone(DEFAULT_ROLLOUT_CONFIG),
    guardrail: { ...DEFAULT_GUARDRAIL_CONFIG },
    // Written as values; the report then names each as configured, with the default's source beside it.
    reports: { estimates: Object.fromEntries(Object.entries(DEFAULT_ESTIMATE_CONSTANTS).map(([name, c]) => [name, c.value])) },
  };
  return Value.Default(SvcConfig as TSchema, withSections(SvcConfig as unknown as Schemaish, raw)) as SvcConfig;
}

export const INIT_HEADER = [
  '# svc configuration (README.md#configuration; JSON Schema: schemas/svc-config.schema.json).',
  '# Every key is written with its default. SVC_* environment variables override these values;',
  '# credentials (SVC_LOCAL_API_KEY, SVC_API_KEYS_JSON) come from the environment only.',
  '# Keys with no default: storage.database_url (omit: SQLite in the state dir; postgres://… for PostgreSQL),',
  '# storage.s3.bucket (required when storage.chunk_backend is s3) and storage.s3.endpoint',
  '# (omit for AWS S3; http(s)://… for MinIO, Ceph RGW, R2, …).',
  '',
].join('\n');
