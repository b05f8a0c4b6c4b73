/**
 * svc.v1.PolicyService — the gRPC form of `/v1/policies` (route policies.ts):
 * validate, evaluate, and bundles (list, get, publish, reload).
 */
import { Type } from 'typebox';
import type { BundleRef } from '../../policy/types.ts';
import { PolicyTextRequest } from '../../policy/policy-requests.ts';
import { validate } from '../../validation.ts';
import { bundleToDocument } from '../../policy/bundle.ts';
import { jsonResult } from '../mapping/json-result.ts';
import type { BundleRef as BundleRefMessage } from '../generated/svc/v1/BundleRef.ts';
import type { PolicyServiceHandlers } from '../generated/svc/v1/PolicyService.ts';
import { actionClassCodec, contractCodec, modeCodec, riskCodec, workUnitKindCodec } from '../mapping/enums.ts';
import { restBody } from '../mapping/rest-body.ts';
import { fromValue, toStruct } from '../mapping/struct.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

/** The REST path and query parameters, with the REST route's patterns and messages. */
const NameParam = Type.Object({ name: Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }) });
const VersionParam = Type.Object({ version: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) });
const bundleName = (name: string | undefined) => validate(NameParam, { name: name ?? '' }, 'invalid_request', 'path parameters').name;

function bundleRef(ref: BundleRef): BundleRefMessage {
  return { id: ref.id, name: ref.name, version: ref.version, hash: ref.hash };
}

export function policyService(rt: GrpcRuntime): PolicyServiceHandlers {
  const { policy } = rt.app;
  return {
    Validate: unary(rt, 'PolicyService/Validate', (ctx, req) => {
      const body = validate(PolicyTextRequest, restBody({ document: req.document }));
      const result = policy.validate(ctx, body.document);
      return result.ok ? { valid: true, kind: result.kind, errors: [] } : { valid: false, kind: result.kind, errors: result.errors };
    }),

    Evaluate: unary(rt, 'PolicyService/Evaluate', (ctx, req) => {
      const attributes = req.attributes && Object.keys(req.attributes).length > 0 ? Object.fromEntries(Object.entries(req.attributes).map(([k, v]) => [k, fromValue(v)])) : undefined;
      const decision = policy.evaluate(
        ctx,
        restBody({
          tenant: req.tenant,
          namespace: req.namespace,
          work_unit_id: req.work_unit_id,
          work_unit_kind: workUnitKindCodec.toWord(req.work_unit_kind),
          contract: contractCodec.toWord(req.contract),
          mode: modeCodec.toWord(req.mode),
          action: req.action,
          action_class: actionClassCodec.toWord(req.action_class),
          risk: riskCodec.toWord(req.risk),
          model_route: req.model_route,
          attributes,
        }),
      );
      return {
        decision: {
          allow: decision.allow,
          reasons: decision.reasons,
          matched_policy_ids: decision.matched_policy_ids,
          obligations: decision.obligations,
          bundle: bundleRef(decision.bundle),
          guarantee: decision.guarantee,
          default_applied: decision.default_applied,
        },
        bundle: bundleRef(decision.bundle),
      };
    }),

    ListBundles: unary(rt, 'PolicyService/ListBundles', async (ctx) => ({
      bundles: (await policy.listBundles(ctx)).map((b) => ({ name: b.name, in_force: b.in_force, active: b.active ? bundleRef(b.active) : undefined, versions: b.versions.map(bundleRef) })),
    })),

    GetBundle: unary(rt, 'PolicyService/GetBundle', async (ctx, req) => {
      const name = bundleName(req.name);
      const { version } = validate(VersionParam, restBody({ version: req.version }), 'invalid_request', 'query parameters');
      const bundle = await policy.getBundle(ctx, name, version);
      return { bundle: bundleRef(bundle.ref), document: toStruct(bundleToDocument(bundle) as unknown as Record<string, unknown>) };
    }),

    PublishBundle: unary(rt, 'PolicyService/PublishBundle', async (ctx, req) => {
      const name = bundleName(req.name);
      const body = validate(PolicyTextRequest, restBody({ document: req.document }));
      const r = await rt.app.operations.policyPublish(ctx, name, body.document);
      return { created: r.created, bundle: bundleRef(r.bundle), work_unit_id: r.work_unit_id, result: jsonResult(r) };
    }),

    ReloadBundle: unary(rt, 'PolicyService/ReloadBundle', async (ctx, req) => {
      const name = bundleName(req.name);
      const r = await rt.app.operations.policyReload(ctx, name);
      return { bundle: bundleRef(r.bundle), work_unit_id: r.work_unit_id, result: jsonResult(r) };
    }),
  };
}
