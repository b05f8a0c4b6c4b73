/**
 * Loads the configuration once: defaults ← config file ← environment, then
 * validation (unknown keys rejected with their path), then freeze. The
 * environment is injectable so tests do not mutate `process.env`.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Value } from 'typebox/value';
import YAML from 'yaml';
import { SvcError } from '../errors.ts';
import { type Secrets, SvcConfig } from './schema.ts';

export type Env = Record<string, string | undefined>;

export interface LoadedConfig {
  config: Readonly<SvcConfig>;
  secrets: Secrets;
  /** The file that was read, if any. */
  file: string | undefined;
}

export const CONFIG_FILE_NAME = 'config.yaml';

function setPath(obj: Record<string, unknown>, keys: string[], value: unknown): void {
  let cur = obj;
  for (const k of keys.slice(0, -1)) {
    if (typeof cur[k] !== 'object' || cur[k] === null) cur[k] = {};
    cur = cur[k] as Record<string, unknown>;
  }
  cur[keys[keys.length - 1]!] = value;
}

function intFromEnv(name: string, raw: string): number {
  if (!/^\d+$/.test(raw)) throw new SvcError('invalid_request', `${name} must be a non-negative integer, got '${raw}'`);
  return Number(raw);
}

function numberFromEnv(name: string, raw: string): number {
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new SvcError('invalid_request', `${name} must be a non-negative number, got '${raw}'`);
  return Number(raw);
}

function boolFromEnv(name: string, raw: string): boolean {
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new SvcError('invalid_request', `${name} must be true or false, got '${raw}'`);
}

function jsonFromEnv(name: string, raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch (err) {
    throw new SvcError('invalid_request', `${name} is not valid JSON: ${(err as Error).message}`);
  }
}

/** Maps each `SVC_*` variable to its place in the config. */
const ENV_MAP: Array<[string, string[], (name: string, raw: string) => unknown]> = [
  ['SVC_HOST', ['server', 'host'], (_n, v) => v],
  ['SVC_PORT', ['server', 'port'], intFromEnv],
  ['SVC_CLUSTER_SYNC_INTERVAL_MS', ['cluster', 'sync_interval_ms'], intFromEnv],
  ['SVC_BODY_LIMIT_BYTES', ['server', 'body_limit_bytes'], intFromEnv],
  ['SVC_RAW_BODY_LIMIT_BYTES', ['server', 'raw_body_limit_bytes'], intFromEnv],
  ['SVC_GRPC_ENABLED', ['grpc', 'enabled'], boolFromEnv],
  ['SVC_GRPC_HOST', ['grpc', 'host'], (_n, v) => v],
  ['SVC_GRPC_PORT', ['grpc', 'port'], intFromEnv],
  ['SVC_STATE_DIR', ['state_dir'], (_n, v) => v],
  ['SVC_DATABASE_URL', ['storage', 'database_url'], (_n, v) => v],
  ['SVC_CHUNK_BACKEND', ['storage', 'chunk_backend'], (_n, v) => v],
  ['SVC_SQLITE_SYNCHRONOUS', ['storage', 'sqlite_synchronous'], (_n, v) => v],
  ['SVC_CHUNK_DIR', ['storage', 'chunk_dir'], (_n, v) => v],
  ['SVC_PACK_TARGET_BYTES', ['storage', 'pack_target_bytes'], intFromEnv],
  ['SVC_CHUNK_LAYOUT', ['storage', 'chunk_layout'], (_n, v) => v],
  ['SVC_FRAME_CODEC', ['storage', 'frame_codec'], (_n, v) => v],
  ['SVC_FRAME_TARGET_BYTES', ['storage', 'frame_target_bytes'], intFromEnv],
  ['SVC_ZSTD_LEVEL', ['storage', 'zstd_level'], intFromEnv],
  ['SVC_CHUNK_CACHE_BYTES', ['storage', 'chunk_cache_bytes'], intFromEnv],
  ['SVC_S3_BUCKET', ['storage', 's3', 'bucket'], (_n, v) => v],
  ['SVC_S3_PREFIX', ['storage', 's3', 'prefix'], (_n, v) => v],
  ['SVC_S3_REGION', ['storage', 's3', 'region'], (_n, v) => v],
  ['SVC_S3_ENDPOINT', ['storage', 's3', 'endpoint'], (_n, v) => v],
  ['SVC_S3_FORCE_PATH_STYLE', ['storage', 's3', 'force_path_style'], boolFromEnv],
  ['SVC_DEDUPE_SCOPE', ['storage', 'dedupe_scope'], (_n, v) => v],
  ['SVC_DEFAULT_MODE', ['default_mode'], (_n, v) => v],
  ['SVC_LOG_LEVEL', ['log_level'], (_n, v) => v],
  ['SVC_POLICY_BUNDLE', ['policy', 'bundle_name'], (_n, v) => v],
  ['SVC_MULTIPART_MIN_PART_BYTES', ['multipart', 'min_part_bytes'], intFromEnv],
  ['SVC_GC_TOMBSTONE_RETENTION_DAYS', ['gc', 'tombstone_retention_days'], intFromEnv],
  ['SVC_GC_GRACE_MINUTES', ['gc', 'grace_minutes'], numberFromEnv],
  ['SVC_GC_MULTIPART_EXPIRY_HOURS', ['gc', 'multipart_expiry_hours'], intFromEnv],
  ['SVC_GC_RECOMPRESS_LEVEL', ['gc', 'recompress_level'], intFromEnv],
  ['SVC_GC_RECOMPRESS_AFTER_MINUTES', ['gc', 'recompress_after_minutes'], numberFromEnv],
  ['SVC_CACHE_PURGE_INTERVAL_SECONDS', ['cache', 'purge_interval_seconds'], numberFromEnv],
  ['SVC_CACHE_PURGE_BATCH_SIZE', ['cache', 'purge_batch_size'], intFromEnv],
  ['SVC_PROVIDERS_JSON', ['providers'], jsonFromEnv],
  ['SVC_PLUGINS_TRUSTED_PUBLISHERS_JSON', ['plugins', 'trusted_publishers'], jsonFromEnv],
];

function readFile(file: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = YAML.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new SvcError('invalid_request', `cannot read config file ${file}: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new SvcError('invalid_request', `config file ${file} must contain a mapping`);
  return doc as Record<string, unknown>;
}

/** Every problem, each with its JSON path, e.g. `/server/prot: unknown key`. */
function problemsOf(value: unknown): string[] {
  const errors = [...Value.Errors(SvcConfig, value)].filter((e) => (e as { message?: string }).message !== 'schema is false');
  return errors.map((e) => {
    const err = e as { instancePath?: string; message?: string; keyword?: string; params?: Record<string, unknown> };
    const where = err.instancePath || '';
    if (err.keyword === 'additionalProperties') {
      const extra = (err.params?.additionalProperties as string[] | string | undefined) ?? '';
      const known = knownKeysAt(where);
      return `${where}/${Array.isArray(extra) ? extra.join(',') : extra}: unknown key${known.length > 0 ? ` (known keys here: ${known.join(', ')})` : ''}`;
    }
    return `${where || '/'}: ${err.message ?? 'invalid'}`;
  });
}

/** The keys the schema allows at a JSON path such as `/server` (empty when the path is not an object). */
function knownKeysAt(pointer: string): string[] {
  let schema = SvcConfig as unknown as { properties?: Record<string, unknown>; items?: unknown };
  for (const seg of pointer.split('/').filter((p) => p !== '')) {
    const next = /^\d+$/.test(seg) ? schema.items : schema.properties?.[seg];
    if (next === undefined || next === null || typeof next !== 'object') return [];
    schema = next as typeof schema;
  }
  return Object.keys(schema.properties ?? {});
}

/** Rules that span keys, which the schema cannot express; same `path: message` form. */
function crossKeyProblems(config: SvcConfig): string[] {
  const problems: string[] = [];
  if (config.storage.chunk_backend === 's3' && !config.storage.s3?.bucket) {
    problems.push('/storage/s3/bucket: required when storage.chunk_backend is s3 (env SVC_S3_BUCKET)');
  }
  return problems;
}

export interface LoadOptions {
  env?: Env;
  /** Explicit config file (`--config`); otherwise SVC_CONFIG, then <state_dir>/config.yaml when present. */
  file?: string | undefined;
  /** Last-word overrides (CLI flags such as --port). */
  overrides?: Record<string, unknown>;
}

export function loadConfig(options: LoadOptions = {}): LoadedConfig {
  const env = options.env ?? process.env;
  const stateDirHint = env.SVC_STATE_DIR ?? '.svc';
  const candidate = options.file ?? env.SVC_CONFIG ?? path.join(stateDirHint, CONFIG_FILE_NAME);
  const explicit = options.file !== undefined || env.SVC_CONFIG !== undefined;
  let raw: Record<string, unknown> = {};
  let file: string | undefined;
  if (existsSync(candidate)) {
    raw = readFile(candidate);
    file = candidate;
  } else if (explicit) {
    throw new SvcError('invalid_request', `config file ${candidate} does not exist`);
  }
  for (const [name, keys, parse] of ENV_MAP) {
    const v = env[name];
    if (v !== undefined && v !== '') setPath(raw, keys, parse(name, v));
  }
  for (const [k, v] of Object.entries(options.overrides ?? {})) setPath(raw, k.split('.'), v);
  // Fill nested defaults: sections first, then their fields.
  for (const section of ['server', 'grpc', 'storage', 'multipart', 'gc', 'policy']) raw[section] ??= {};
  const withDefaults = Value.Default(SvcConfig, raw);
  const problems = problemsOf(withDefaults);
  if (problems.length === 0) problems.push(...crossKeyProblems(withDefaults as SvcConfig));
  if (problems.length > 0) {
    throw new SvcError('invalid_request', `invalid configuration${file ? ` (${file})` : ''}: ${problems.join('; ')}`, { details: { problems } });
  }
  const config = withDefaults as SvcConfig;
  return {
    config: deepFreeze(config),
    secrets: { localApiKey: env.SVC_LOCAL_API_KEY || undefined, apiKeysJson: env.SVC_API_KEYS_JSON || undefined },
    file,
  };
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object') {
    for (const inner of Object.values(v)) deepFreeze(inner);
    Object.freeze(v);
  }
  return v;
}
