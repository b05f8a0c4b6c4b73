/**
 * The query string of `POST /v1/work-units/execute/raw` (decision 112): the
 * fields of an inline byte_object execute other than the payload, which is
 * the raw request body. Values are text; the work unit fields are then held
 * to the same schema as the JSON body (WorkUnitCreate) and the plan options
 * to PlanOptions, so both routes accept and refuse the same things.
 */
import { Type, type Static } from 'typebox';
import { SvcError } from '../errors.ts';
import { PlanOptions } from '../plans/plan.ts';
import { validate } from '../validation.ts';
import { WorkUnitCreate } from '../work-units/work-unit.ts';

export const RawExecuteQuery = Type.Object(
  {
    kind: Type.Optional(Type.Literal('byte_object', { description: 'The only kind with a raw body; the default.' })),
    tenant: Type.Optional(Type.String()),
    logical_ref: Type.String({ description: 'scheme://path of the object (as in the JSON body).' }),
    requested_contract: Type.Optional(Type.String()),
    mode: Type.Optional(Type.String({ description: 'observe | enforce' })),
    namespace: Type.Optional(Type.String()),
    transforms: Type.Optional(Type.String({ description: 'Comma-separated extra transforms; policy decides.' })),
    metadata: Type.Optional(Type.String({ description: 'The work unit metadata as a JSON object of strings, e.g. {"owner":"alice"}.' })),
  },
  { additionalProperties: false },
);
export type RawExecuteQuery = Static<typeof RawExecuteQuery>;

export interface RawExecuteInput {
  unit: { tenant?: string | undefined; logical_ref: string; requested_contract?: string | undefined; metadata?: Record<string, string> | undefined };
  options: PlanOptions;
}

function parseMetadata(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    throw new SvcError('invalid_work_unit', 'metadata must be a JSON object of strings, e.g. {"owner":"alice"}', { details: { param: 'metadata' } });
  }
}

/** Validates the query and splits it into work unit fields and plan options. */
export function parseRawExecuteQuery(query: unknown): RawExecuteInput {
  const q = validate(RawExecuteQuery, query ?? {}, 'invalid_work_unit', 'query parameters');
  const metadata = parseMetadata(q.metadata);
  const unit = validate(
    WorkUnitCreate,
    Object.fromEntries(
      Object.entries({ kind: 'byte_object', tenant: q.tenant, logical_ref: q.logical_ref, requested_contract: q.requested_contract, metadata }).filter(([, v]) => v !== undefined),
    ),
    'invalid_work_unit',
    'query parameters',
  );
  const transforms = q.transforms?.split(',').map((t) => t.trim()).filter((t) => t !== '');
  const options = validate(PlanOptions, Object.fromEntries(Object.entries({ mode: q.mode, namespace: q.namespace, transforms }).filter(([, v]) => v !== undefined)), 'invalid_request', 'query parameters');
  return { unit: { tenant: unit.tenant, logical_ref: unit.logical_ref, requested_contract: unit.requested_contract, metadata: unit.metadata }, options };
}
