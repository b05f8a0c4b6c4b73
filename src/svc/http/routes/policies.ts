/**
 * `/v1/policies`: validate, evaluate, and bundles (list, get, publish,
 * reload). Thin adapter over `app.policy` (src/svc/policy/policy-service.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import { bundleToDocument } from '../../policy/bundle.ts';
import { EvaluateRequest, PolicyTextRequest } from '../../policy/policy-requests.ts';
import { validate } from '../../validation.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';

const NameParams = Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }) });
const VersionQuery = Type.Object({ version: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) });

export async function policyRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;

  server.post('/v1/policies/validate', { ...doc, schema: { tags: ['policies'], summary: 'Validate a policy or bundle (YAML or JSON text); errors carry line numbers', body: PolicyTextRequest } }, async (request) => {
    const body = validate(PolicyTextRequest, request.body);
    const result = app.policy.validate(ctx(request), body.document);
    return result.ok ? { valid: true, kind: result.kind, errors: [] } : { valid: false, kind: result.kind, errors: result.errors };
  });

  server.post('/v1/policies/evaluate', { ...doc, schema: { tags: ['policies'], summary: 'Evaluate a decision against the bundle in force', body: EvaluateRequest } }, async (request, reply) => {
    const decision = app.policy.evaluate(ctx(request), request.body);
    setWorkUnitHeaders(reply, { policyBundleId: decision.bundle.id });
    return { decision, bundle: decision.bundle };
  });

  server.get('/v1/policies/bundles', { ...doc, schema: { tags: ['policies'], summary: 'List bundles and their versions' } }, async (request) => ({
    bundles: await app.policy.listBundles(ctx(request)),
  }));

  server.get('/v1/policies/bundles/:name', { ...doc, schema: { tags: ['policies'], summary: 'Get a bundle (the active version, or ?version=)', params: NameParams, querystring: VersionQuery } }, async (request) => {
    const { name } = validate(NameParams, request.params, 'invalid_request', 'path parameters');
    const { version } = validate(VersionQuery, request.query, 'invalid_request', 'query parameters');
    const bundle = await app.policy.getBundle(ctx(request), name, version);
    return { bundle: bundle.ref, document: bundleToDocument(bundle) };
  });

  server.post('/v1/policies/bundles/:name/publish', { ...doc, schema: { tags: ['policies'], summary: 'Publish a bundle (requires policy:publish)', params: NameParams, body: PolicyTextRequest } }, async (request, reply) => {
    const { name } = validate(NameParams, request.params, 'invalid_request', 'path parameters');
    const body = validate(PolicyTextRequest, request.body);
    const result = await app.operations.policyPublish(ctx(request), name, body.document);
    setWorkUnitHeaders(reply, { policyBundleId: result.bundle.id, workUnitId: result.work_unit_id });
    return reply.status(result.created ? 201 : 200).send(result);
  });

  server.post('/v1/policies/bundles/:name/reload', { ...doc, schema: { tags: ['policies'], summary: 'Validate the active bundle on disk and put it in force; a bad bundle keeps the old one', params: NameParams } }, async (request, reply) => {
    const { name } = validate(NameParams, request.params, 'invalid_request', 'path parameters');
    const result = await app.operations.policyReload(ctx(request), name);
    setWorkUnitHeaders(reply, { policyBundleId: result.bundle.id, workUnitId: result.work_unit_id });
    return result;
  });
}
