// @generated-files writer: regenerates src/attr/schemas/*.schema.json from the TypeBox definitions.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { PUBLISHED_SCHEMAS, schemaFileText } from './published-schemas.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
for (const [file, schema] of Object.entries(PUBLISHED_SCHEMAS)) {
  writeFileSync(path.join(here, file), schemaFileText(schema));
  console.log(`wrote ${file}`);
}
