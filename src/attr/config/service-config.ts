/**
 * Loading the service configuration: read, parse, schema-check (every
 * violation with its path), check what the schema cannot express (unique
 * provider ids), resolve relative paths against the config file's directory,
 * fill provider defaults, freeze. Loaded once at start-up.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '../../core/hashing.ts';
import { invalidProxyEntries } from './trusted-proxies.ts';
import { compileChecker, type SchemaIssue } from './schema-check.ts';
import { DEFAULT_PROVIDER_BOUNDS, ServiceConfigSchema, type ServiceConfigDocument } from './service-config-schema.ts';

/** The environment variable holding the hex SHA-256 of the service bearer token (never the token). */
export const TOKEN_DIGEST_ENV = 'ATTR_SERVICE_TOKEN_SHA256';

/** A provider route with every bound filled in. */
export interface ProviderRoute {
  readonly providerId: string;
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKeyEnv: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  readonly maxResponseBytes: number;
}

/** The validated, path-resolved, frozen configuration the service runs with. */
export interface ServiceConfig {
  readonly configPath: string;
  /** SHA-256 of the config file bytes: bound into readiness artifacts. */
  readonly configSha256: string;
  readonly corpusPath: string;
  readonly auditLogPath: string;
  readonly artifactDir: string;
  readonly trustStorePath: string | undefined;
  /** Footer signing key (docs/decisions/136-signed-footers.md); undefined: footers are unsigned. */
  readonly footerSigning: { readonly keyId: string; readonly privateKeyPath: string } | undefined;
  readonly host: string;
  readonly port: number;
  readonly operator: string;
  readonly publicBaseUrl: string | undefined;
  readonly auditFsync: 'per_batch' | 'none';
  /** `engine.workers`: worker threads for the engine; undefined: the available parallelism; 0: inline. */
  readonly engineWorkers: number | undefined;
  readonly limits: Readonly<ServiceConfigDocument['limits']>;
  readonly rateLimit: Readonly<ServiceConfigDocument['rate_limit']>;
  readonly providers: readonly ProviderRoute[];
}

/** Thrown when a config file cannot be read, parsed or validated; carries every issue. */
export class ConfigError extends Error {
  readonly issues: SchemaIssue[];
  constructor(message: string, issues: SchemaIssue[] = []) {
    super(message);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}

const checker = compileChecker(ServiceConfigSchema);

/** Schema issues plus the cross-field rules of the document; empty when valid. */
export function configDocumentIssues(document: unknown): SchemaIssue[] {
  const issues = checker.issues(document);
  if (issues.length > 0 || !checker.check(document)) return issues;
  const seen = new Map<string, number>();
  document.providers.forEach((p, i) => {
    const first = seen.get(p.provider_id);
    if (first !== undefined) issues.push({ path: `/providers/${i}/provider_id`, message: `duplicate provider_id (also /providers/${first})` });
    else seen.set(p.provider_id, i);
  });
  if (document.footer_signing !== undefined && document.trust_store_path === undefined) {
    issues.push({ path: '/footer_signing', message: 'requires trust_store_path (relying parties check footer signatures against the trust store)' });
  }
  for (const i of invalidProxyEntries(document.rate_limit.trusted_proxies ?? [])) {
    issues.push({ path: `/rate_limit/trusted_proxies/${i}`, message: 'must be an IP address or a CIDR range (e.g. 10.0.0.0/8)' });
  }
  return issues;
}

/** Parses and validates config text; `configPath` anchors relative paths. */
export function parseServiceConfig(text: string, configPath: string): ServiceConfig {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new ConfigError(`config ${configPath} is not valid JSON: ${(err as Error).message}`, [{ path: '', message: 'invalid JSON' }]);
  }
  const issues = configDocumentIssues(document);
  if (issues.length > 0 || !checker.check(document)) {
    throw new ConfigError(`config ${configPath} is invalid: ${issues.map((i) => `${i.path || '/'} ${i.message}`).join('; ')}`, issues);
  }
  const base = path.dirname(path.resolve(configPath));
  const resolve = (p: string): string => path.resolve(base, p);
  const config: ServiceConfig = {
    configPath: path.resolve(configPath),
    configSha256: sha256Hex(text),
    corpusPath: resolve(document.corpus_path),
    auditLogPath: resolve(document.audit_log_path),
    artifactDir: resolve(document.artifact_dir),
    trustStorePath: document.trust_store_path === undefined ? undefined : resolve(document.trust_store_path),
    footerSigning:
      document.footer_signing === undefined
        ? undefined
        : Object.freeze({ keyId: document.footer_signing.key_id, privateKeyPath: resolve(document.footer_signing.private_key_path) }),
    host: document.service.host,
    port: document.service.port,
    operator: document.service.operator,
    publicBaseUrl: document.service.public_base_url,
    auditFsync: document.audit.fsync,
    engineWorkers: document.engine?.workers,
    limits: Object.freeze({ ...document.limits }),
    rateLimit: Object.freeze({ ...document.rate_limit }),
    providers: Object.freeze(
      document.providers.map((p) =>
        Object.freeze({
          providerId: p.provider_id,
          baseUrl: p.base_url.replace(/\/+$/, ''),
          model: p.model,
          apiKeyEnv: p.api_key_env,
          timeoutMs: p.timeout_ms ?? DEFAULT_PROVIDER_BOUNDS.timeout_ms,
          maxOutputBytes: p.max_output_bytes ?? DEFAULT_PROVIDER_BOUNDS.max_output_bytes,
          maxResponseBytes: p.max_response_bytes ?? DEFAULT_PROVIDER_BOUNDS.max_response_bytes,
        }),
      ),
    ),
  };
  return Object.freeze(config);
}

/** Reads and validates a config file. Throws `ConfigError`. */
export async function loadServiceConfig(configPath: string): Promise<ServiceConfig> {
  let text: string;
  try {
    text = await readFile(configPath, 'utf8');
  } catch (err) {
    throw new ConfigError(`cannot read config ${configPath}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, [{ path: '', message: 'unreadable file' }]);
  }
  return parseServiceConfig(text, configPath);
}

/** Returns a copy of the config with the listener overridden (`--host`/`--port`). */
export function withListener(config: ServiceConfig, overrides: { host?: string | undefined; port?: number | undefined }): ServiceConfig {
  return Object.freeze({ ...config, host: overrides.host ?? config.host, port: overrides.port ?? config.port });
}
