import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { policyJsonSchemaFiles, SCHEMA_DIR } from './json-schemas.ts';

describe('published policy JSON Schemas', () => {
  for (const [name, text] of Object.entries(policyJsonSchemaFiles())) {
    it(`schemas/${name} matches the TypeBox definition (regenerate with --write)`, () => {
      assert.equal(readFileSync(path.join(SCHEMA_DIR, name), 'utf8'), text);
    });
  }
});
