/** `/v1/reports`: the dashboard report (src/svc/reports; docs/reports.md). */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { ReportQuery } from '../../reports/report-query.ts';
import { ctx } from '../request-context.ts';

export async function reportRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;
  server.get(
    '/v1/reports/dashboard',
    { ...doc, schema: { tags: ['reports'], summary: 'Dashboard: executive, platform, ai, data, security, computed from manifests and ledger rows', querystring: ReportQuery } },
    async (request) => app.reports.dashboard(ctx(request), { ...(request.query as object) }),
  );
  server.get(
    '/v1/reports/recommendations',
    { ...doc, schema: { tags: ['reports'], summary: 'Data-quality findings with evidence ids, labelled estimated savings and severity', querystring: ReportQuery } },
    async (request) => app.reports.recommendations(ctx(request), { ...(request.query as object) }),
  );
}
