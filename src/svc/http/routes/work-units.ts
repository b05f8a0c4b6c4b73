/** `/v1/work-units`: create, list, get, plan by id, plan inline. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import { PlanOptions } from '../../plans/plan.ts';
import { WorkUnitCreate, toView } from '../../work-units/work-unit.ts';
import { WorkUnitListQuery } from '../../work-units/work-unit-list.ts';
import { optionalInt } from '../query.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';
import { planHeaders } from './plans.ts';

const IdParams = Type.Object({ id: Type.String() });

export async function workUnitRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  // Validation happens in the domain layer (shared with gRPC and the CLI); schemas here document the API.
  const doc = { attachValidation: true } as const;

  server.post('/v1/work-units', { ...doc, schema: { tags: ['work-units'], summary: 'Create a work unit', body: WorkUnitCreate } }, async (request, reply) => {
    const wu = await app.workUnits.create(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: wu.id, contract: wu.requested_contract });
    return reply.status(201).send(toView(wu));
  });

  server.get('/v1/work-units', { ...doc, schema: { tags: ['work-units'], summary: 'List work units (filters: tenant, kind, state, from/to creation time; paged by continuation_token)', querystring: WorkUnitListQuery } }, async (request) => {
    const q = request.query as Record<string, string | undefined>;
    // Query strings are strings: drop empty values, make `limit` a number; the domain validates the rest.
    const query: Record<string, unknown> = Object.fromEntries(Object.entries(q).filter(([, v]) => v !== undefined && v !== ''));
    if (query.limit !== undefined) query.limit = optionalInt(q.limit, 'limit');
    const page = await app.workUnits.list(ctx(request), query);
    return { work_units: page.work_units.map(toView), next_continuation_token: page.next_continuation_token };
  });

  server.get('/v1/work-units/:id', { ...doc, schema: { tags: ['work-units'], summary: 'Get a work unit', params: IdParams } }, async (request, reply) => {
    const wu = await app.workUnits.get(ctx(request), (request.params as { id: string }).id);
    setWorkUnitHeaders(reply, { workUnitId: wu.id, contract: wu.requested_contract, manifestId: wu.manifest_id });
    return toView(wu);
  });

  server.post('/v1/work-units/:id/plan', { ...doc, schema: { tags: ['plans'], summary: 'Plan a stored work unit', params: IdParams, body: Type.Optional(PlanOptions) } }, async (request, reply) => {
    const plan = await app.plans.planById(ctx(request), (request.params as { id: string }).id, request.body ?? {});
    setWorkUnitHeaders(reply, planHeaders(plan));
    return plan;
  });

  server.post('/v1/work-units/plan', { ...doc, schema: { tags: ['plans'], summary: 'Create and plan an inline work unit', body: WorkUnitCreate } }, async (request, reply) => {
    const plan = await app.plans.planInline(ctx(request), request.body);
    setWorkUnitHeaders(reply, planHeaders(plan));
    return plan;
  });
}
