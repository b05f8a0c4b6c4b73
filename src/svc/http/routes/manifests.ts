/** `/v1/manifests`: get, list, explore, rehydrate, export, import, release. */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import { SvcError } from '../../errors.ts';
import { parseRangeHeader } from '../../exact-bytes/byte-range.ts';
import { ExportRequest } from '../../manifests/manifest-export.ts';
import { ManifestListQuery, RehydrateRequest } from '../../manifests/manifest.ts';
import { sendBytes } from '../byte-response.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { optionalInt } from '../query.ts';
import { ctx } from '../request-context.ts';

const IdParams = Type.Object({ id: Type.String() });

/** Largest import body: exports carry chunks in base64. */
const IMPORT_BODY_LIMIT = 768 * 1024 * 1024;

/** A standard `Range: bytes=…` header stands in for the body's `range` when the body names none. */
function withRangeHeader(body: unknown, header: string | undefined): unknown {
  const request = (body ?? {}) as Record<string, unknown>;
  if (header === undefined || request.range !== undefined) return request;
  return { ...request, range: parseRangeHeader(header) };
}

function optionalBool(raw: unknown, name: string): boolean | undefined {
  if (raw === undefined || raw === '') return undefined;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new SvcError('invalid_request', `${name} must be true or false`);
}

export async function manifestRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;
  const manifests = app.objects.manifests;

  server.get('/v1/manifests', { ...doc, schema: { tags: ['manifests'], summary: 'List manifests (tombstoned hidden unless include_tombstoned)', querystring: ManifestListQuery } }, async (request) => {
    const q = request.query as Record<string, string | undefined>;
    const query = Object.fromEntries(
      Object.entries({
        tenant: q.tenant,
        logical_ref: q.logical_ref,
        state: q.state,
        include_tombstoned: optionalBool(q.include_tombstoned, 'include_tombstoned'),
        redacted: optionalBool(q.redacted, 'redacted'),
        cursor: q.cursor,
        limit: optionalInt(q.limit, 'limit'),
      }).filter(([, v]) => v !== undefined),
    );
    return manifests.list(ctx(request), query);
  });

  server.get('/v1/manifests/explore', { ...doc, schema: { tags: ['manifests'], summary: 'Aggregates by kind, contract and state, with redacted rows', querystring: Type.Object({ tenant: Type.Optional(Type.String()) }) } }, async (request) => {
    return manifests.explore(ctx(request), (request.query as { tenant?: string }).tenant || undefined);
  });

  server.get('/v1/manifests/:id', { ...doc, schema: { tags: ['manifests'], summary: 'Get a manifest', params: IdParams } }, async (request, reply) => {
    const m = (await manifests.getAny(ctx(request), (request.params as { id: string }).id)) as Partial<Record<'work_unit_id' | 'manifest_id' | 'contract' | 'mode' | 'policy_bundle_id', string>>;
    setWorkUnitHeaders(reply, { workUnitId: m.work_unit_id, manifestId: m.manifest_id, contract: m.contract, mode: m.mode, policyBundleId: m.policy_bundle_id });
    return m;
  });

  server.post('/v1/manifests/:id/rehydrate', { ...doc, schema: { tags: ['manifests'], summary: 'Raw bytes of the object, whole or a byte range (body `range`, or a `Range: bytes=…` header)', params: IdParams, body: Type.Optional(RehydrateRequest) } }, async (request, reply) => {
    // sendBytes writes each piece out before it asks for the next: the read may borrow its buffers.
    const { manifest, rehydration } = await manifests.rehydrate(ctx(request), (request.params as { id: string }).id, withRangeHeader(request.body, request.headers.range), { borrowBuffers: true });
    setWorkUnitHeaders(reply, { workUnitId: manifest.work_unit_id, manifestId: manifest.manifest_id, contract: manifest.contract, mode: manifest.mode });
    return sendBytes(reply, rehydration, manifest.sha256);
  });

  server.post('/v1/manifests/:id/release', { ...doc, schema: { tags: ['manifests'], summary: 'Release a quarantined manifest after a successful full verification (operators)', params: IdParams } }, async (request) => {
    return manifests.release(ctx(request), (request.params as { id: string }).id);
  });

  server.post('/v1/manifests/export', { ...doc, schema: { tags: ['manifests'], summary: 'Export manifests, the ledger slice and optionally the chunks', body: Type.Optional(ExportRequest) } }, async (request) => {
    return app.objects.exporter.export(ctx(request), request.body ?? {});
  });

  server.post('/v1/manifests/import', { bodyLimit: IMPORT_BODY_LIMIT, schema: { tags: ['manifests'], summary: 'Import an export (manifests and chunks); existing manifests are skipped' } }, async (request, reply) => {
    const report = await app.operations.manifestImport(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: report.work_unit_id });
    return report;
  });
}
