/**
 * Response bodies of the HTTP API for /openapi.json, defined once next to the
 * domain types they describe (the attribution response, the discovery
 * manifest, the metrics counters) plus the two the HTTP layer owns: the
 * readiness body (`attr-readiness/v1`, also published as a schema file) and
 * the liveness body. Fastify serializes with JSON.stringify (http-server.ts),
 * so these schemas document the wire format without reshaping it.
 */
import Type, { type Static, type TSchema } from 'typebox';
import { ATTR_ERROR_TABLE, type AttrErrorCode } from '../errors.ts';
import { CheckResultSchema } from '../readiness/artifact-schemas.ts';

export const READINESS_BODY_SCHEMA_ID = 'attr-readiness/v1';

export const ReadinessBodySchema = Type.Object(
  {
    schema: Type.Literal(READINESS_BODY_SCHEMA_ID),
    status: Type.Union([Type.Literal('ready'), Type.Literal('not_ready')]),
    ready: Type.Boolean({ description: 'true only when every check passed' }),
    checked_at: Type.String({ format: 'date-time' }),
    checks: Type.Array(CheckResultSchema, { description: 'Every readiness check in a fixed order (docs/attr-readiness.md).' }),
  },
  { additionalProperties: false, $id: 'https://attr.invalid/schemas/attr-readiness-v1.json', title: READINESS_BODY_SCHEMA_ID },
);
export type ReadinessBody = Static<typeof ReadinessBodySchema>;

export const HealthBodySchema = Type.Object({ status: Type.Literal('ok') }, { additionalProperties: false });

/** The error body with `code` from the one error table, so client generators get the vocabulary. */
function errorBodySchema(codes: readonly AttrErrorCode[], description: string): TSchema {
  return Type.Object(
    {
      error: Type.Object(
        {
          code: Type.Enum([...codes]),
          message: Type.String(),
          retryable: Type.Boolean(),
          details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false, description },
  );
}

const codesFor = (status: number): AttrErrorCode[] =>
  (Object.entries(ATTR_ERROR_TABLE) as [AttrErrorCode, { http: number }][]).filter(([, v]) => v.http === status).map(([code]) => code);

const ERROR_DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid request (schema, Unicode, revenue grammar, unknown provider)',
  401: 'Missing or wrong bearer token (fail closed)',
  413: 'Request, prompt, output or provider output over its limit',
  415: 'Body is not application/json, or carries a Content-Encoding',
  429: 'Over the per-client rate limit',
  500: 'Internal error or the audit log could not record the request (nothing released)',
  502: 'Provider call failed, was filtered, malformed or too large (fail closed)',
  503: 'Not ready (a readiness check fails) or a provider key is missing',
};

/** Error responses for the given statuses, each listing the codes that map to it. */
export function errorResponses(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((s) => [s, errorBodySchema(codesFor(s), ERROR_DESCRIPTIONS[s] ?? 'Error')]));
}

/** Public routes refuse nothing themselves; any 4XX they can give (e.g. a malformed request line) carries the error body. */
export const ANY_CLIENT_ERROR = { '4XX': errorBodySchema(Object.keys(ATTR_ERROR_TABLE) as AttrErrorCode[], 'Client error, with the error body') };

/** With a description, as OpenAPI needs one per response. */
export function described<T extends TSchema>(schema: T, description: string): T {
  return { ...schema, description };
}
