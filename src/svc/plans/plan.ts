/** The plan: actions the service intends to take for one work unit, under a contract and a mode. */
import { Type, type Static } from 'typebox';

export const PlanAction = Type.Object({
  type: Type.String({ description: 'hash, content_defined_chunk, dedupe, zstd, exact_cache_lookup, semantic_cache_lookup, context_compile, model_route, verify' }),
  required: Type.Boolean(),
  risk: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]),
  class: Type.Union([Type.Literal('exact'), Type.Literal('semantic'), Type.Literal('operation')]),
});
export type PlanAction = Static<typeof PlanAction>;

export const DeniedAction = Type.Object({
  type: Type.String(),
  reasons: Type.Array(Type.String()),
  matched_policy_ids: Type.Array(Type.String()),
});

export const Plan = Type.Object(
  {
    plan_id: Type.String(),
    work_unit_id: Type.String(),
    tenant: Type.String(),
    kind: Type.String(),
    contract: Type.String(),
    mode: Type.Union([Type.Literal('observe'), Type.Literal('enforce')]),
    actions: Type.Array(PlanAction),
    denied_actions: Type.Array(DeniedAction),
    obligations: Type.Array(Type.String()),
    risk: Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')]),
    expected: Type.Object({
      stored_bytes_reduction: Type.Number({ minimum: 0, maximum: 1, description: 'Expected fraction of stored bytes saved.' }),
      basis: Type.String({ description: 'How the estimate was made: zstd_sample, none.' }),
      sample_bytes: Type.Integer(),
    }),
    rollout: Type.Optional(Type.Object({
      canary: Type.Union([Type.String(), Type.Null()], { description: 'The canary rule that selected this work unit, if any.' }),
      reducers: Type.String({ description: 'Reducer tier in force: none, exact or all.' }),
      guardrail_tripped: Type.Boolean(),
      reasons: Type.Array(Type.String()),
    })),
    policy_bundle_id: Type.String(),
    policy_bundle_version: Type.String(),
    policy_bundle_hash: Type.String(),
    trace_id: Type.String(),
    created_at: Type.String(),
  },
  {},
);
export type Plan = Static<typeof Plan>;

export const PlanOptions = Type.Object(
  {
    mode: Type.Optional(Type.Union([Type.Literal('observe'), Type.Literal('enforce')])),
    namespace: Type.Optional(Type.String({ maxLength: 256 })),
    /** Extra transforms the client asks for (e.g. `semantic_summary`); policy decides. */
    transforms: Type.Optional(Type.Array(Type.String({ maxLength: 128 }), { maxItems: 16 })),
  },
  { additionalProperties: false },
);
export type PlanOptions = Static<typeof PlanOptions>;
