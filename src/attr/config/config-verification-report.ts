/**
 * The output of `attr-service-config validate` (`attr-service-config-verification/v1`),
 * published as JSON Schema in src/attr/config/schemas/. `valid` is false when
 * the document violates the config schema or any `failed` check; `warning`
 * checks (environment not set in this shell) never fail validation, because
 * the service may run with a different environment.
 */
import Type from 'typebox';
import type { Static } from 'typebox';

export const CONFIG_VERIFICATION_SCHEMA_ID = 'attr-service-config-verification/v1';

export const ConfigVerificationReportSchema = Type.Object(
  {
    schema: Type.Literal(CONFIG_VERIFICATION_SCHEMA_ID),
    config_path: Type.String(),
    config_sha256: Type.Union([Type.String({ pattern: '^[0-9a-f]{64}$' }), Type.Null()]),
    valid: Type.Boolean(),
    issues: Type.Array(Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false })),
    checks: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          status: Type.Union([Type.Literal('passed'), Type.Literal('failed'), Type.Literal('warning')]),
          detail: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, $id: CONFIG_VERIFICATION_SCHEMA_ID },
);

export type ConfigVerificationReport = Static<typeof ConfigVerificationReportSchema>;
export type ConfigCheck = ConfigVerificationReport['checks'][number];
