/**
 * `/v1/admin`: rollback switches and the admin readiness report (checks,
 * switches, guardrail, bundle in force, canaries). Thin adapter over
 * `app.rollout` (src/svc/rollout/).
 */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { checkReadiness } from '../../readiness.ts';
import { SwitchChange } from '../../rollout/switches.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';

export async function adminRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;

  server.get('/v1/admin/switches', { schema: { tags: ['admin'], summary: 'Current switches and guardrail state' } }, async (request) => {
    const r = app.rollout.readinessFor(ctx(request));
    return { switches: r.switches, guardrail: r.guardrail };
  });

  server.post('/v1/admin/switches', { ...doc, schema: { tags: ['admin'], summary: 'Change one rollback switch (admin:switches); audited', body: SwitchChange } }, async (request, reply) => {
    const result = await app.operations.switchChange(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: result.work_unit_id });
    return result;
  });

  server.get('/v1/admin/readiness', { schema: { tags: ['admin'], summary: 'Readiness checks plus rollout state' } }, async (request) => {
    const rollout = app.rollout.readinessFor(ctx(request));
    const report = await checkReadiness(app);
    return { ...report, rollout, policy_startup: app.policy.startup };
  });
}
