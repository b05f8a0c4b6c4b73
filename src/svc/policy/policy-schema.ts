/**
 * The policy language, defined once as TypeBox schemas. The same objects
 * validate documents (`validatePolicyText`), type the compiler, and are
 * published as JSON Schema (schemas/policy.schema.json,
 * schemas/policy-bundle.schema.json). docs/policy.md is the user guide.
 */
import Type, { type Static } from 'typebox';

/** Policy ids: `pol_` then a readable slug (lowercase letters, digits, `_`, `-`). */
export const POLICY_ID_PATTERN = '^pol_[a-z0-9][a-z0-9_-]{0,79}$';
/** Bundle ids: `pb_` then a ULID, assigned on publish. */
export const BUNDLE_ID_PATTERN = '^pb_[0-9a-hjkmnp-tv-z]{26}$';
/** Bundle names double as directory names, so they are kept filesystem-safe. */
export const BUNDLE_NAME_PATTERN = '^[a-z0-9][a-z0-9_-]{0,62}$';

const Scalar = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

/**
 * An operator object; every operator present must hold (AND). Numeric
 * operators only match numeric values; `prefix` only matches strings.
 */
export const ConditionOperators = Type.Object(
  {
    eq: Type.Optional(Scalar),
    ne: Type.Optional(Scalar),
    in: Type.Optional(Type.Array(Scalar, { minItems: 1 })),
    not_in: Type.Optional(Type.Array(Scalar, { minItems: 1 })),
    prefix: Type.Optional(Type.String({ minLength: 1 })),
    gt: Type.Optional(Type.Number()),
    gte: Type.Optional(Type.Number()),
    lt: Type.Optional(Type.Number()),
    lte: Type.Optional(Type.Number()),
    exists: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1, description: 'Operators on one input field; all must hold.' },
);

/** A bare scalar is shorthand for `{ eq: <scalar> }`. */
export const Condition = Type.Union([Scalar, ConditionOperators], {
  description: 'A scalar (equals) or an operator object: eq, ne, in, not_in, prefix, gt, gte, lt, lte, exists.',
});

/** The input fields a policy can match on. All listed conditions must hold (AND). */
export const Match = Type.Object(
  {
    tenant: Type.Optional(Condition),
    namespace: Type.Optional(Condition),
    work_unit_kind: Type.Optional(Condition),
    work_unit_id: Type.Optional(Condition),
    contract: Type.Optional(Condition),
    mode: Type.Optional(Condition),
    action: Type.Optional(Condition),
    action_class: Type.Optional(Condition),
    risk: Type.Optional(Condition),
    model_route: Type.Optional(Condition),
    actor: Type.Optional(Condition),
    /** Matches when any of the principal's roles satisfies the condition. */
    role: Type.Optional(Condition),
    /** The principal's own tenant binding (absent for unbound principals). */
    principal_tenant: Type.Optional(Condition),
    attributes: Type.Optional(Type.Record(Type.String({ minLength: 1 }), Condition)),
  },
  { additionalProperties: false },
);

export const Effect = Type.Enum(['allow', 'deny']);
export const ObligationName = Type.Enum(['requires_approval', 'force_exact', 'observe_only']);

export const PolicyDocument = Type.Object(
  {
    id: Type.String({ pattern: POLICY_ID_PATTERN }),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    /** Higher runs first; the highest-priority matching effect decides (deny wins ties). */
    priority: Type.Optional(Type.Integer({ minimum: -1000, maximum: 1000 })),
    /** Omit for an obligation-only policy that adds obligations without deciding. */
    effect: Type.Optional(Effect),
    match: Type.Optional(Match),
    obligations: Type.Optional(Type.Array(ObligationName, { uniqueItems: true })),
  },
  { additionalProperties: false, $id: 'https://svc.local/schemas/policy.schema.json', title: 'svc policy' },
);

export const BundleDocument = Type.Object(
  {
    id: Type.Optional(Type.String({ pattern: BUNDLE_ID_PATTERN })),
    name: Type.String({ pattern: BUNDLE_NAME_PATTERN }),
    version: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9][A-Za-z0-9._+-]*$' }),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    /** What an action no policy decides gets. Object delete stays denied either way. */
    default_effect: Type.Optional(Effect),
    policies: Type.Array(PolicyDocument, { maxItems: 10000 }),
  },
  { additionalProperties: false, $id: 'https://svc.local/schemas/policy-bundle.schema.json', title: 'svc policy bundle' },
);

export type ConditionOperatorsDoc = Static<typeof ConditionOperators>;
export type ConditionDoc = Static<typeof Condition>;
export type MatchDoc = Static<typeof Match>;
export type PolicyDoc = Static<typeof PolicyDocument>;
export type BundleDoc = Static<typeof BundleDocument>;
export type EffectName = Static<typeof Effect>;
