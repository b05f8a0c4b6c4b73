/**
 * Request and response schemas of the policy API, defined once: the routes
 * validate with them, the CLI sends them, OpenAPI publishes them.
 */
import Type, { type Static } from 'typebox';

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

/** `POST /v1/policies/evaluate`: a PolicyInput without the principal (the server supplies it). */
export const EvaluateRequest = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    namespace: Type.Optional(Type.String({ maxLength: 256 })),
    work_unit_id: Type.Optional(Type.String({ maxLength: 64 })),
    work_unit_kind: Type.String({ minLength: 1, maxLength: 64 }),
    contract: Type.String({ minLength: 1, maxLength: 64 }),
    mode: Type.Enum(['observe', 'enforce']),
    action: Type.String({ minLength: 1, maxLength: 128 }),
    action_class: Type.Optional(Type.Enum(['exact', 'semantic', 'operation'])),
    risk: Type.Optional(Type.Enum(['low', 'medium', 'high'])),
    model_route: Type.Optional(Type.String({ maxLength: 128 })),
    attributes: Type.Optional(Type.Record(Type.String({ minLength: 1, maxLength: 64 }), Scalar)),
  },
  { additionalProperties: false },
);
export type EvaluateRequest = Static<typeof EvaluateRequest>;

/** `POST /v1/policies/validate` and bundle publish: the document as YAML or JSON text. */
export const PolicyTextRequest = Type.Object(
  { document: Type.String({ minLength: 1, maxLength: 2 * 1024 * 1024, description: 'A policy or bundle as YAML or JSON text.' }) },
  { additionalProperties: false },
);
export type PolicyTextRequest = Static<typeof PolicyTextRequest>;

export const BundleRefSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  version: Type.String(),
  hash: Type.String(),
});
