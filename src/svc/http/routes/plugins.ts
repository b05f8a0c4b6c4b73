/**
 * `/v1/plugins`: list, get, install (upload a signed bundle), enable, disable.
 * Thin adapter over `app.plugins` (src/svc/plugins/plugin-service.ts); roles
 * and the signature checks live there (docs/plugins.md).
 */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { PluginBundle, PluginIdParams } from '../../plugins/plugin-manifest.ts';
import { ctx } from '../request-context.ts';

export async function pluginRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;
  const tags = ['plugins'];
  // The domain enforces plugins.max_bundle_bytes with a clear error; the transport limit sits just above it.
  const bodyLimit = app.plugins.limits.maxBundleBytes + 64 * 1024;

  server.get('/v1/plugins', { schema: { tags, summary: 'Installed plugins with their status (work_units:read)' } }, async (request) => app.plugins.list(ctx(request)));

  server.get('/v1/plugins/:id', { ...doc, schema: { tags, summary: 'One installed plugin; unknown → not_found', params: PluginIdParams } }, async (request) =>
    app.plugins.get(ctx(request), (request.params as { id: string }).id),
  );

  server.post(
    '/v1/plugins',
    { ...doc, bodyLimit, schema: { tags, summary: 'Install a signed plugin bundle (plugins:manage, deployment-wide key); it starts disabled. A bad signature → 422 plugin_signature_invalid', body: PluginBundle } },
    async (request, reply) => {
      const r = await app.plugins.install(ctx(request), request.body);
      return reply.status(r.created ? 201 : 200).send(r.plugin);
    },
  );

  server.post('/v1/plugins/:id/enable', { ...doc, schema: { tags, summary: 'Check the stored bundle against the trust list again and enable it (plugins:manage)', params: PluginIdParams } }, async (request) =>
    app.plugins.enable(ctx(request), (request.params as { id: string }).id),
  );

  server.post('/v1/plugins/:id/disable', { ...doc, schema: { tags, summary: 'The rollback switch for one plugin, recorded in the ledger (plugins:manage or admin:switches)', params: PluginIdParams } }, async (request) =>
    app.plugins.disable(ctx(request), (request.params as { id: string }).id),
  );
}
