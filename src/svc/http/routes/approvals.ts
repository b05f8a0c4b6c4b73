/**
 * `/v1/approvals`: issue, read, list, revoke, redeem, and the public key.
 * Thin adapter over `app.approvals` (src/svc/approvals/approval-service.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import { APPROVAL_HEADER, ApprovalIdParams, CreateApprovalRequest, RedeemApprovalRequest } from '../../approvals/approval-record.ts';
import { validate } from '../../validation.ts';
import { optionalInt } from '../query.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';

const IdParams = ApprovalIdParams;
const ListQuery = Type.Object({
  tenant: Type.Optional(Type.String()),
  after: Type.Optional(Type.String({ pattern: '^apr_[0-9a-hjkmnp-tv-z]{26}$', description: 'Cursor: the last approval id of the previous page.' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
});

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export async function approvalRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;

  server.get('/v1/approvals/public-key', { schema: { tags: ['approvals'], summary: 'The Ed25519 public key (JWK) approvals are signed with' } }, async (request) => {
    ctx(request);
    return { keys: [app.approvals.publicKey()] };
  });

  server.post('/v1/approvals', { ...doc, schema: { tags: ['approvals'], summary: 'Issue a signed approval (approver role); the token is returned once', body: CreateApprovalRequest } }, async (request, reply) => {
    const issued = await app.operations.approvalIssue(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: issued.work_unit_id });
    return reply.status(201).send(issued);
  });

  server.get('/v1/approvals', { ...doc, schema: { tags: ['approvals'], summary: 'List approvals', querystring: ListQuery } }, async (request) => {
    const q = request.query as Record<string, string | undefined>;
    return { approvals: await app.approvals.list(ctx(request), { tenant: q.tenant, after: q.after, limit: optionalInt(q.limit, 'limit') }) };
  });

  server.get('/v1/approvals/:id', { ...doc, schema: { tags: ['approvals'], summary: 'Get an approval record', params: IdParams } }, async (request) => {
    const { id } = validate(IdParams, request.params, 'invalid_request', 'path parameters');
    return { approval: await app.approvals.get(ctx(request), id) };
  });

  server.post('/v1/approvals/:id/revoke', { ...doc, schema: { tags: ['approvals'], summary: 'Revoke an approval', params: IdParams } }, async (request, reply) => {
    const { id } = validate(IdParams, request.params, 'invalid_request', 'path parameters');
    const revoked = await app.operations.approvalRevoke(ctx(request), id);
    setWorkUnitHeaders(reply, { workUnitId: revoked.work_unit_id });
    return revoked;
  });

  server.post('/v1/approvals/redeem', { ...doc, schema: { tags: ['approvals'], summary: 'Check (and consume, if single-use) the approval in X-SVC-Approval for a scope', body: RedeemApprovalRequest } }, async (request, reply) => {
    const redeemed = await app.operations.approvalRedeem(ctx(request), request.body, headerValue(request.headers[APPROVAL_HEADER]));
    setWorkUnitHeaders(reply, { workUnitId: redeemed.work_unit_id });
    return redeemed;
  });
}
