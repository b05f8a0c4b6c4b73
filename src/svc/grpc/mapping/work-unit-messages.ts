/**
 * Work unit messages ⇄ the REST JSON the work unit and plan services take
 * and return. A binary payload becomes the REST base64 envelope, so the
 * domain decodes and checks it exactly as it does for REST.
 */
import type { PlanOptions__Output } from '../generated/svc/v1/PlanOptions.ts';
import type { WorkUnit } from '../generated/svc/v1/WorkUnit.ts';
import type { WorkUnitCreate__Output } from '../generated/svc/v1/WorkUnitCreate.ts';
import type { WorkUnitPayload__Output } from '../generated/svc/v1/WorkUnitPayload.ts';
import type { WorkUnitView } from '../../work-units/work-unit.ts';
import { contractCodec, modeCodec, workUnitKindCodec, workUnitStateCodec } from './enums.ts';
import { nonEmptyList, optional, restBody } from './rest-body.ts';
import { fromStruct } from './struct.ts';

function payloadBody(payload: WorkUnitPayload__Output | undefined): unknown {
  if (payload?.data !== undefined) return { _svc_encoding: 'base64', data: payload.data.toString('base64') };
  if (payload?.value !== undefined) return fromStruct(payload.value);
  return undefined;
}

/** The REST create body (`POST /v1/work-units`). */
export function workUnitCreateBody(message: WorkUnitCreate__Output | undefined): Record<string, unknown> {
  const m = message ?? {};
  return restBody({
    kind: workUnitKindCodec.toWord(m.kind),
    tenant: m.tenant,
    logical_ref: m.logical_ref,
    requested_contract: contractCodec.toWord(m.requested_contract),
    payload: payloadBody(m.payload),
    metadata: m.metadata && Object.keys(m.metadata).length > 0 ? m.metadata : undefined,
  });
}

/** The REST plan options body (`POST /v1/work-units/{id}/plan` and `/execute`); `undefined` when not sent. */
export function planOptionsBody(options: PlanOptions__Output | undefined): Record<string, unknown> | undefined {
  if (options === undefined) return undefined;
  return restBody({ mode: modeCodec.toWord(options.mode), namespace: options.namespace, transforms: nonEmptyList(options.transforms) });
}

/** An inline body: the create body with plan options alongside (`POST /v1/work-units/plan`, `/execute`). */
export function inlineBody(workUnit: WorkUnitCreate__Output | undefined, options: PlanOptions__Output | undefined): Record<string, unknown> {
  return { ...workUnitCreateBody(workUnit), ...planOptionsBody(options) };
}

export function toWorkUnitMessage(view: WorkUnitView): WorkUnit {
  return {
    work_unit_id: view.work_unit_id,
    kind: workUnitKindCodec.fromWord(view.kind),
    tenant: view.tenant,
    logical_ref: view.logical_ref,
    requested_contract: contractCodec.fromWord(view.requested_contract),
    state: workUnitStateCodec.fromWord(view.state),
    metadata: view.metadata,
    payload: { kind: view.payload.kind, size: view.payload.size, sha256: optional(view.payload.sha256) },
    created_by: view.created_by,
    trace_id: view.trace_id,
    last_plan_id: optional(view.last_plan_id),
    manifest_id: optional(view.manifest_id),
    created_at: view.created_at,
    updated_at: view.updated_at,
  };
}
