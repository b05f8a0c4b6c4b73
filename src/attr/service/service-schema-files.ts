/**
 * The JSON Schema files the service side of attr publishes, generated from
 * their TypeBox definitions (`node src/attr/service/service-schema-files.ts`
 * rewrites them). `service-schema-files.test.ts` fails when a committed file
 * differs from its definition, so the files cannot drift.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TSchema } from 'typebox';
import { AuditEntrySchema } from '../audit/audit-entry.ts';
import { AuditVerificationReportSchema } from '../audit/audit-verification-report.ts';
import { ConfigVerificationReportSchema } from '../config/config-verification-report.ts';
import { ServiceConfigSchema } from '../config/service-config-schema.ts';
import { ARTIFACTS } from '../readiness/artifact-schemas.ts';
import { schemaFileText } from '../schemas/published-schemas.ts';
import { SmokeReportSchema } from '../smoke/smoke-report.ts';
import { ReadinessBodySchema } from './response-schemas.ts';
import { TrustStoreSchema } from '../trust-store/trust-store-schema.ts';
import { TrustStoreValidationReportSchema } from '../trust-store/trust-store-validation-report.ts';

const ATTR_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Path (relative to src/attr) → schema. */
export const SERVICE_SCHEMA_FILES: Readonly<Record<string, TSchema>> = {
  'config/schemas/attr-service-config.v1.schema.json': ServiceConfigSchema,
  'config/schemas/attr-service-config-verification.v1.schema.json': ConfigVerificationReportSchema,
  'audit/schemas/attr-audit-entry.v1.schema.json': AuditEntrySchema,
  'audit/schemas/attr-audit-verification-report.v1.schema.json': AuditVerificationReportSchema,
  'trust-store/schemas/attr-deployment-trust-store.v1.schema.json': TrustStoreSchema,
  'trust-store/schemas/attr-trust-store-validation-report.v1.schema.json': TrustStoreValidationReportSchema,
  'service/schemas/attr-readiness.v1.schema.json': ReadinessBodySchema,
  'smoke/schemas/attr-smoke-report.v1.schema.json': SmokeReportSchema,
  ...Object.fromEntries(Object.values(ARTIFACTS).map((a) => [`readiness/schemas/${a.file.replace(/\.json$/, '')}.v1.schema.json`, a.schema])),
};

export function schemaFilePath(relative: string): string {
  return path.join(ATTR_DIR, relative);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { mkdirSync } = await import('node:fs');
  for (const [relative, schema] of Object.entries(SERVICE_SCHEMA_FILES)) {
    const file = schemaFilePath(relative);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, schemaFileText(schema));
    process.stdout.write(`wrote ${path.relative(process.cwd(), file)}\n`);
  }
}
