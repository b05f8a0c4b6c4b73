/**
 * Deep validation of a config file for `attr-service-config validate`: the
 * schema, then whether the service could actually start with it — the corpus
 * loads, the audit log verifies (or its directory is writable), the artifact
 * directory is writable, the trust store validates — and, as warnings, whether
 * the environment this shell would give the service holds the token digest and
 * provider keys. Nothing is created or modified.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import path from 'node:path';
import { AUDIT_ENTRY_SCHEMA_ID } from '../audit/audit-entry.ts';
import { verifyAuditLogFile } from '../audit/verify-audit-log.ts';
import { loadCorpus } from '../engine/index.ts';
import { AttrError } from '../errors.ts';
import { validateTrustStoreFile } from '../trust-store/validate-trust-store.ts';
import { CONFIG_VERIFICATION_SCHEMA_ID, type ConfigCheck, type ConfigVerificationReport } from './config-verification-report.ts';
import { ConfigError, TOKEN_DIGEST_ENV, loadServiceConfig, type ServiceConfig } from './service-config.ts';

/** Nearest existing ancestor of `p` (itself if it exists). */
async function existingAncestor(p: string): Promise<string> {
  let current = p;
  for (;;) {
    try {
      await stat(current);
      return current;
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return current;
      current = parent;
    }
  }
}

async function writableDir(dir: string): Promise<{ ok: boolean; detail: string }> {
  const existing = await existingAncestor(dir);
  try {
    const s = await stat(existing);
    if (!s.isDirectory()) return { ok: false, detail: `${existing} is not a directory` };
    await access(existing, constants.W_OK);
    return { ok: true, detail: existing === dir ? `${dir} is writable` : `${dir} can be created under ${existing}` };
  } catch {
    return { ok: false, detail: `${existing} is not writable` };
  }
}

async function deepChecks(config: ServiceConfig, env: Readonly<Record<string, string | undefined>>): Promise<ConfigCheck[]> {
  const checks: ConfigCheck[] = [];
  const add = (name: string, status: ConfigCheck['status'], detail: string): void => {
    checks.push({ name, status, detail });
  };
  try {
    const corpus = await loadCorpus(config.corpusPath);
    add('corpus_loads', 'passed', `${corpus.sources.length} sources, sha256 ${corpus.sha256.slice(0, 12)}`);
  } catch (err) {
    const e = AttrError.from(err);
    add('corpus_loads', 'failed', `${e.code}: ${e.message}`);
  }
  const audit = await verifyAuditLogFile(config.auditLogPath, { missingIsEmpty: true });
  if (!audit.ok) add('audit_log', 'failed', `existing log does not verify (${AUDIT_ENTRY_SCHEMA_ID}): ${audit.first_bad_entry?.kind} at line ${audit.first_bad_entry?.line}`);
  else {
    const dir = await writableDir(path.dirname(config.auditLogPath));
    add('audit_log', dir.ok ? 'passed' : 'failed', audit.entries_checked > 0 ? `${audit.entries_checked} entries verify; ${dir.detail}` : dir.detail);
  }
  const artifacts = await writableDir(config.artifactDir);
  add('artifact_dir', artifacts.ok ? 'passed' : 'failed', artifacts.detail);
  if (config.trustStorePath !== undefined) {
    const ts = await validateTrustStoreFile(config.trustStorePath);
    add('trust_store', ts.valid ? 'passed' : 'failed', ts.valid ? `${ts.keys.length} keys` : `${ts.schema_issues.length + ts.key_issues.length} issues; run attr-trust-store-validate --file ${config.trustStorePath}`);
  }
  const digest = env[TOKEN_DIGEST_ENV];
  add('token_digest_env', digest !== undefined && /^[0-9a-fA-F]{64}$/.test(digest.trim()) ? 'passed' : 'warning', `${TOKEN_DIGEST_ENV} ${digest === undefined ? 'is not set in this environment' : 'is set'}`);
  for (const p of config.providers) {
    add(`provider_key:${p.providerId}`, (env[p.apiKeyEnv] ?? '') !== '' ? 'passed' : 'warning', `${p.apiKeyEnv} ${(env[p.apiKeyEnv] ?? '') !== '' ? 'is set' : 'is not set in this environment (calls to this provider fail closed)'}`);
  }
  return checks;
}

export async function verifyConfigFile(configPath: string, env: Readonly<Record<string, string | undefined>> = process.env): Promise<ConfigVerificationReport> {
  const report: ConfigVerificationReport = { schema: CONFIG_VERIFICATION_SCHEMA_ID, config_path: path.resolve(configPath), config_sha256: null, valid: false, issues: [], checks: [] };
  let config: ServiceConfig;
  try {
    config = await loadServiceConfig(configPath);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    report.issues = err.issues;
    return report;
  }
  report.config_sha256 = config.configSha256;
  report.checks = await deepChecks(config, env);
  report.valid = report.checks.every((c) => c.status !== 'failed');
  return report;
}
