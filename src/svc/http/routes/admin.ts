/**
 * `/v1/admin`: rollback switches and the admin readiness report (checks,
 * switches, guardrail, bundle in force, canaries). Thin adapter over
 * `app.rollout` (src/svc/rollout/).
 */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { GcRequest } from '../../gc/gc-service.ts';
import { ChunkMigrationRequest } from '../../chunk-store/chunk-migration.ts';
import { RestoreTestRequest } from '../../restore-tests/restore-test.ts';
import { checkReadiness } from '../../readiness.ts';
import { SwitchChange } from '../../rollout/switches.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';
import { Type } from 'typebox';
import { PlaceLegalHoldRequest } from '../../legal-holds/legal-hold.ts';

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

  server.post(
    '/v1/admin/restore-tests',
    { ...doc, schema: { tags: ['admin'], summary: 'Run one rehydration restore test now (restore_tests:run): sampled_exact, critical_full, table_logical, cache_source, manifest_migration; a ledger event (docs/restore-tests.md)', body: RestoreTestRequest } },
    async (request) => ({ result: await app.restoreTests.run(ctx(request), request.body) }),
  );

  server.post(
    '/v1/admin/gc',
    {
      ...doc,
      schema: {
        tags: ['admin'],
        summary:
          'Garbage collection now (storage:gc, admin; deployment-wide keys): mark retained manifests, condemn or delete unreferenced packed chunks, delete and repack packs, expire abandoned multipart uploads; dry_run reports without changing anything; a storage.gc_completed ledger event (docs/objects.md#garbage-collection)',
        body: GcRequest,
      },
    },
    async (request) => ({ result: await app.gc.runRequest(ctx(request), request.body) }),
  );

  server.post(
    '/v1/admin/chunks/migrate',
    {
      ...doc,
      schema: {
        tags: ['admin'],
        summary:
          'Copy chunks of the old one-file-per-chunk layout into packs (storage:gc, admin; deployment-wide keys): each old file verified, packed, and removed only once its pack and index rows are durable; idempotent; dry_run counts without changing anything; a storage.chunks_migrated ledger event (docs/chunking.md#migrating-the-old-layout)',
        body: ChunkMigrationRequest,
      },
    },
    async (request) => ({ result: await app.chunkMigration.runRequest(ctx(request), request.body) }),
  );

  server.get('/v1/admin/alerts', { schema: { tags: ['admin'], summary: 'The spec alerts evaluated in process now: state, value, window, PromQL (docs/alerts.md)' } }, async (request) =>
    app.alerts.report(ctx(request)),
  );

  server.get('/v1/admin/legal-holds', { schema: { tags: ['admin'], summary: 'Active legal holds (tenant filter; bound keys see their own)', querystring: Type.Object({ tenant: Type.Optional(Type.String()) }) } }, async (request) =>
    app.legalHolds.list(ctx(request), (request.query as { tenant?: string }).tenant || undefined),
  );
  server.post('/v1/admin/legal-holds', { ...doc, schema: { tags: ['admin'], summary: 'Place a legal hold on a tenant, prefix or manifest (policy:publish); audited', body: PlaceLegalHoldRequest } }, async (request, reply) =>
    reply.code(201).send(await app.legalHolds.place(ctx(request), request.body)),
  );
  server.post('/v1/admin/legal-holds/:id/release', { schema: { tags: ['admin'], summary: 'Release a legal hold (policy:publish); audited', params: Type.Object({ id: Type.String() }) } }, async (request) =>
    app.legalHolds.release(ctx(request), (request.params as { id: string }).id),
  );

  server.get('/v1/admin/readiness', { schema: { tags: ['admin'], summary: 'Readiness checks plus rollout state' } }, async (request) => {
    const rollout = app.rollout.readinessFor(ctx(request));
    const report = await checkReadiness(app);
    return { ...report, rollout, policy_startup: app.policy.startup };
  });
}
