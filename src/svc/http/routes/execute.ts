/** `POST /v1/work-units/{id}/execute` and `POST /v1/work-units/execute` (inline): byte objects and AI work units. */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import type { ExecuteResult } from '../../exact-bytes/exact-executor.ts';
import type { AiExecuteResult } from '../../exact-bytes/execute-service.ts';
import { PlanOptions } from '../../plans/plan.ts';
import { WorkUnitCreate } from '../../work-units/work-unit.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';

function withHeaders(reply: FastifyReply, r: ExecuteResult | AiExecuteResult): ExecuteResult | AiExecuteResult {
  const ai = 'cache' in r.details ? r.details : undefined;
  setWorkUnitHeaders(reply, { workUnitId: r.work_unit_id, manifestId: r.manifest_id, contract: r.contract, policyBundleId: r.policy_bundle_id, mode: r.mode, cache: ai?.cache, route: ai?.route });
  return r;
}

export async function executeRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;

  server.post(
    '/v1/work-units/:id/execute',
    { ...doc, schema: { tags: ['work-units'], summary: 'Execute a stored work unit: a byte_object through the exact executor (plans first unless a plan exists and no options are given), an AI request through the AI gateway', params: Type.Object({ id: Type.String() }), body: Type.Optional(PlanOptions) } },
    async (request, reply) => withHeaders(reply, await app.objects.execute.executeById(ctx(request), (request.params as { id: string }).id, request.body ?? {})),
  );

  server.post(
    '/v1/work-units/execute',
    { ...doc, schema: { tags: ['work-units'], summary: 'Create, plan and execute an inline work unit (byte_object or AI request)', body: WorkUnitCreate } },
    async (request, reply) => withHeaders(reply, await app.objects.execute.executeInline(ctx(request), request.body)),
  );
}
