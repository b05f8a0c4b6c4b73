/**
 * Work unit schemas and the stored record. The create body is defined once
 * here (TypeBox) and used for validation, types, JSON Schema and OpenAPI.
 * docs/decisions/004-work-unit-fields.md records the choices the spec left open.
 */
import { Type, type Static } from 'typebox';

export const WORK_UNIT_KINDS = ['byte_object', 'prompt_request', 'completion_request', 'embedding_request'] as const;
export const CONTRACTS = ['exact_bytes', 'semantic'] as const;
export const MODES = ['observe', 'enforce'] as const;

export type WorkUnitKind = (typeof WORK_UNIT_KINDS)[number];
export type Contract = (typeof CONTRACTS)[number];

/** `scheme://path`: a lowercase scheme (RFC 3986 characters) and a non-empty rest. */
export const LOGICAL_REF_PATTERN = '^[a-z][a-z0-9+.-]*://[^\\s]+$';

export const BinaryEnvelope = Type.Object(
  {
    _svc_encoding: Type.Literal('base64'),
    data: Type.String({ description: 'Standard padded base64.' }),
  },
  { additionalProperties: false, description: 'Binary data in a JSON body.' },
);

export const ChatMessage = Type.Object(
  {
    role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant'), Type.Literal('tool'), Type.Literal('developer')]),
    content: Type.String(),
  },
  { additionalProperties: true },
);

export const PromptPayload = Type.Object(
  { messages: Type.Array(ChatMessage, { minItems: 1 }) },
  { additionalProperties: true, description: 'A prompt request: chat messages plus optional model parameters.' },
);

export const WorkUnitCreate = Type.Object(
  {
    kind: Type.Union(WORK_UNIT_KINDS.map((k) => Type.Literal(k))),
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._-]+$' })),
    logical_ref: Type.String({ pattern: LOGICAL_REF_PATTERN, maxLength: 2048 }),
    requested_contract: Type.Optional(Type.Union(CONTRACTS.map((c) => Type.Literal(c)), { default: 'exact_bytes' })),
    payload: Type.Optional(Type.Union([BinaryEnvelope, PromptPayload, Type.Object({}, { additionalProperties: true })])),
    metadata: Type.Optional(Type.Record(Type.String({ maxLength: 128 }), Type.String({ maxLength: 4096 }), { maxProperties: 64 })),
  },
  { additionalProperties: false },
);
export type WorkUnitCreate = Static<typeof WorkUnitCreate>;

/**
 * States: created → planned → executed, or → failed. Planning again is
 * allowed (a new plan); executing an executed unit is refused (conflict).
 */
export type WorkUnitState = 'created' | 'planned' | 'executed' | 'failed';

export type StoredPayload =
  | { kind: 'none' }
  | { kind: 'binary'; bytes: Uint8Array }
  | { kind: 'json'; value: Record<string, unknown> };

export interface WorkUnitRecord {
  id: string;
  tenant: string;
  kind: string;
  logical_ref: string;
  requested_contract: string;
  state: WorkUnitState;
  metadata: Record<string, string>;
  payload: StoredPayload;
  payload_size: number;
  payload_sha256: string | null;
  created_by: string;
  trace_id: string;
  last_plan_id: string | null;
  manifest_id: string | null;
  created_at: string;
  updated_at: string;
}

/** The API view: payload bytes are never echoed back, only their size and digest. */
export const WorkUnitView = Type.Object(
  {
    work_unit_id: Type.String(),
    kind: Type.String(),
    tenant: Type.String(),
    logical_ref: Type.String(),
    requested_contract: Type.String(),
    state: Type.String(),
    metadata: Type.Record(Type.String(), Type.String()),
    payload: Type.Object({ kind: Type.String(), size: Type.Integer(), sha256: Type.Union([Type.String(), Type.Null()]) }),
    created_by: Type.String(),
    trace_id: Type.String(),
    last_plan_id: Type.Union([Type.String(), Type.Null()]),
    manifest_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Type.String(),
    updated_at: Type.String(),
  },
  {},
);
export type WorkUnitView = Static<typeof WorkUnitView>;

export function toView(wu: WorkUnitRecord): WorkUnitView {
  return {
    work_unit_id: wu.id,
    kind: wu.kind,
    tenant: wu.tenant,
    logical_ref: wu.logical_ref,
    requested_contract: wu.requested_contract,
    state: wu.state,
    metadata: wu.metadata,
    payload: { kind: wu.payload.kind, size: wu.payload_size, sha256: wu.payload_sha256 },
    created_by: wu.created_by,
    trace_id: wu.trace_id,
    last_plan_id: wu.last_plan_id,
    manifest_id: wu.manifest_id,
    created_at: wu.created_at,
    updated_at: wu.updated_at,
  };
}
