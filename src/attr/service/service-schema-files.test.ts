import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { schemaFileText } from '../schemas/published-schemas.ts';
import { SERVICE_SCHEMA_FILES, schemaFilePath } from './service-schema-files.ts';

for (const [relative, schema] of Object.entries(SERVICE_SCHEMA_FILES)) {
  test(`${relative} is up to date with its TypeBox definition and compiles as draft 2020-12`, () => {
    const text = readFileSync(schemaFilePath(relative), 'utf8');
    assert.equal(text, schemaFileText(schema), 'regenerate with: node src/attr/service/service-schema-files.ts');
    const ajv = new Ajv2020({ strict: false });
    assert.equal(typeof ajv.compile(JSON.parse(text)), 'function');
  });
}
