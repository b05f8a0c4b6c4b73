/**
 * The published JSON Schema of svc's configuration file
 * (schemas/svc-config.schema.json), generated from the TypeBox definition the
 * loader validates with (schema.ts) — never edited by hand. Editors can point
 * YAML language servers at it (`# yaml-language-server: $schema=…`).
 * Regenerate with `node src/svc/config/json-schema.ts --write`; a test fails
 * when the committed file drifts from the definition.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { SvcConfig } from './schema.ts';

export const CONFIG_SCHEMA_FILE = path.join(import.meta.dirname, '..', '..', '..', 'schemas', 'svc-config.schema.json');

type JsonSchema = { [key: string]: unknown; required?: string[]; properties?: Record<string, JsonSchema> };

/**
 * The loader fills defaults before it validates, so in a file a key with a
 * default, and a whole section, may be left out: those are not `required`
 * in the published schema. Keys without a default (a provider's `name`)
 * stay required.
 */
function fileShape(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema)) return (schema as JsonSchema[]).map(fileShape) as unknown as JsonSchema;
  if (schema === null || typeof schema !== 'object') return schema;
  const out: JsonSchema = {};
  for (const [k, v] of Object.entries(schema)) out[k] = v !== null && typeof v === 'object' ? fileShape(v as JsonSchema) : v;
  if (out.required && out.properties) {
    const props = out.properties;
    const required = out.required.filter((key) => props[key] !== undefined && !('default' in props[key]!) && props[key]!['type'] !== 'object');
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  return out;
}

/** The JSON text, exactly as committed. */
export function configJsonSchemaText(): string {
  const doc = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://svc.local/schemas/svc-config.schema.json',
    title: 'svc configuration file',
    $comment: '@generated from src/svc/config/schema.ts by src/svc/config/json-schema.ts; do not edit',
    ...fileShape(JSON.parse(JSON.stringify(SvcConfig)) as JsonSchema),
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

if (process.argv[1] === import.meta.filename && process.argv.includes('--write')) {
  writeFileSync(CONFIG_SCHEMA_FILE, configJsonSchemaText());
}
