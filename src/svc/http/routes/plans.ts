/** `/v1/plans`: persisted plans. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import type { Plan } from '../../plans/plan.ts';
import { WorkUnitCreate } from '../../work-units/work-unit.ts';
import type { WorkUnitHeaderValues } from '../headers.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';
import { optionalInt } from '../query.ts';

export function planHeaders(plan: Plan): WorkUnitHeaderValues {
  return { workUnitId: plan.work_unit_id, contract: plan.contract, mode: plan.mode, policyBundleId: plan.policy_bundle_id };
}

const ListQuery = Type.Object({
  tenant: Type.Optional(Type.String()),
  work_unit_id: Type.Optional(Type.String()),
  after: Type.Optional(Type.String({ pattern: '^pl_[0-9a-hjkmnp-tv-z]{26}$', description: 'Cursor: the last plan id of the previous page.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});

export async function planRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;

  server.post('/v1/plans', { ...doc, schema: { tags: ['plans'], summary: 'Create a work unit and persist its plan', body: WorkUnitCreate } }, async (request, reply) => {
    const plan = await app.plans.planInline(ctx(request), request.body);
    setWorkUnitHeaders(reply, planHeaders(plan));
    return reply.status(201).send(plan);
  });

  server.get('/v1/plans', { ...doc, schema: { tags: ['plans'], summary: 'List persisted plans', querystring: ListQuery } }, async (request) => {
    const q = request.query as Record<string, string | undefined>;
    return app.plans.list(ctx(request), { tenant: q.tenant, work_unit_id: q.work_unit_id, after: q.after, limit: optionalInt(q.limit, 'limit') });
  });

  server.get('/v1/plans/:id', { ...doc, schema: { tags: ['plans'], summary: 'Get a plan', params: Type.Object({ id: Type.String() }) } }, async (request, reply) => {
    const plan = await app.plans.get(ctx(request), (request.params as { id: string }).id);
    setWorkUnitHeaders(reply, planHeaders(plan));
    return plan;
  });
}
