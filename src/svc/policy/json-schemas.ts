/**
 * The published JSON Schemas of the policy language, generated from the
 * TypeBox definitions (policy-schema.ts) — never edited by hand.
 * Regenerate with `node src/svc/policy/json-schemas.ts --write`; a test
 * fails when the committed files drift from the definitions.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { BundleDocument, PolicyDocument } from './policy-schema.ts';

export const SCHEMA_DIR = path.join(import.meta.dirname, '..', '..', '..', 'schemas');

/** File name → JSON text, exactly as committed. */
export function policyJsonSchemaFiles(): Record<string, string> {
  const render = (schema: object) =>
    `${JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', $comment: '@generated from src/svc/policy/policy-schema.ts by src/svc/policy/json-schemas.ts; do not edit', ...schema }, null, 2)}\n`;
  return {
    'policy.schema.json': render(PolicyDocument),
    'policy-bundle.schema.json': render(BundleDocument),
  };
}

if (process.argv[1] === import.meta.filename && process.argv.includes('--write')) {
  for (const [name, text] of Object.entries(policyJsonSchemaFiles())) writeFileSync(path.join(SCHEMA_DIR, name), text);
}
