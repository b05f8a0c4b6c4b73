/**
 * The JSON Schema files attr publishes, generated from the TypeBox
 * definitions (`node src/attr/schemas/generate-schemas.ts`). A test fails
 * when a committed file differs from what the definitions produce.
 */
import { AttributionResponseSchema } from './attribution-response.ts';
import { FooterVerificationReportSchema } from './footer-verification-report.ts';
import { ResponseVerificationReportSchema } from './response-verification-report.ts';

export const PUBLISHED_SCHEMAS = {
  'attribution-response.schema.json': AttributionResponseSchema,
  'response-verification-report.schema.json': ResponseVerificationReportSchema,
  'footer-verification-report.schema.json': FooterVerificationReportSchema,
} as const;

/** The file text for a schema: draft 2020-12 marker, stable two-space JSON, trailing newline. */
export function schemaFileText(schema: object): string {
  return `${JSON.stringify({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...schema }, null, 2)}\n`;
}
