import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PUBLISHED_SCHEMAS, schemaFileText } from './published-schemas.ts';

test('the committed JSON Schema files are what the TypeBox definitions generate', () => {
  for (const [file, schema] of Object.entries(PUBLISHED_SCHEMAS)) {
    const committed = readFileSync(new URL(`./${file}`, import.meta.url), 'utf8');
    assert.equal(committed, schemaFileText(schema), `${file} is stale: run node src/attr/schemas/generate-schemas.ts`);
  }
});
