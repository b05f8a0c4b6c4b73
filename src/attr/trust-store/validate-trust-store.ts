/**
 * Validation of a deployment trust store document: the JSON Schema first, then
 * the checks a schema cannot make. Used by `attr-trust-store-validate` and by
 * the service at start-up when `trust_store_path` is configured.
 */
import { createPublicKey } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { sha256Hex } from '../../core/hashing.ts';
import { compileChecker } from '../config/schema-check.ts';
import { TrustStoreSchema, type TrustStore } from './trust-store-schema.ts';
import { TRUST_STORE_VALIDATION_REPORT_SCHEMA_ID, type TrustStoreValidationReport } from './trust-store-validation-report.ts';

const checker = compileChecker(TrustStoreSchema);

/** Validates an already parsed document; `file` is only echoed in the report. */
export function validateTrustStoreDocument(document: unknown, file: string): TrustStoreValidationReport {
  const report: TrustStoreValidationReport = {
    schema: TRUST_STORE_VALIDATION_REPORT_SCHEMA_ID,
    file,
    valid: false,
    schema_issues: checker.issues(document),
    key_issues: [],
    keys: [],
  };
  if (report.schema_issues.length > 0 || !checker.check(document)) return report;
  const seen = new Map<string, number>();
  document.keys.forEach((key, i) => {
    const earlier = seen.get(key.key_id);
    if (earlier !== undefined) report.key_issues.push({ path: `/keys/${i}/key_id`, message: `duplicate key_id (also /keys/${earlier})` });
    else seen.set(key.key_id, i);
    let spki: string | null = null;
    try {
      const der = createPublicKey({ key: key.public_key_pem, format: 'pem' }).export({ type: 'spki', format: 'der' });
      spki = sha256Hex(der);
    } catch {
      report.key_issues.push({ path: `/keys/${i}/public_key_pem`, message: 'does not parse as a PEM public key' });
    }
    report.keys.push({ key_id: key.key_id, issuer: key.issuer, spki_sha256: spki, allowed_attestation_types: [...key.allowed_attestation_types] });
  });
  report.valid = report.key_issues.length === 0;
  return report;
}

/** Reads, parses and validates a trust store file. Unreadable or non-JSON files are reported, not thrown. */
export async function validateTrustStoreFile(file: string): Promise<TrustStoreValidationReport> {
  return (await loadTrustStoreFile(file)).report;
}

/** Like `validateTrustStoreFile`, also returning the document when it is valid (for signature checks). */
export async function loadTrustStoreFile(file: string): Promise<{ report: TrustStoreValidationReport; document: TrustStore | null }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    return { report: { ...validateTrustStoreDocument(undefined, file), schema_issues: [{ path: '', message: `cannot read file: ${(err as NodeJS.ErrnoException).code ?? 'error'}` }] }, document: null };
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return { report: { ...validateTrustStoreDocument(undefined, file), schema_issues: [{ path: '', message: 'not valid JSON' }] }, document: null };
  }
  const report = validateTrustStoreDocument(document, file);
  return { report, document: report.valid ? (document as TrustStore) : null };
}
