/**
 * svc.v1.ApprovalService — the gRPC form of `/v1/approvals` (route
 * approvals.ts): public key, issue, list, get, revoke, redeem. Issue, revoke
 * and redeem run as operation work units, as on REST; redeem reads the token
 * from metadata `x-svc-approval`, as REST reads the header.
 */
import { ApprovalIdParams } from '../../approvals/approval-record.ts';
import { validate } from '../../validation.ts';
import type { ApprovalServiceHandlers } from '../generated/svc/v1/ApprovalService.ts';
import { jsonResult } from '../mapping/json-result.ts';
import { restBody } from '../mapping/rest-body.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

const approvalId = (id: string | undefined) => validate(ApprovalIdParams, { id: id ?? '' }, 'invalid_request', 'path parameters').id;

export function approvalService(rt: GrpcRuntime): ApprovalServiceHandlers {
  const { approvals, operations } = rt.app;
  return {
    GetPublicKey: unary(rt, 'ApprovalService/GetPublicKey', () => ({ keys: [jsonResult(approvals.publicKey())] })),

    Issue: unary(rt, 'ApprovalService/Issue', async (ctx, req) => {
      const issued = await operations.approvalIssue(
        ctx,
        restBody({ tenant: req.tenant, contract: req.contract, bundle_id: req.bundle_id, work_unit_id: req.work_unit_id, ttl_seconds: req.ttl_seconds, single_use: req.single_use, reason: req.reason }),
      );
      return { work_unit_id: issued.work_unit_id, result: jsonResult(issued) };
    }),

    List: unary(rt, 'ApprovalService/List', async (ctx, req) => ({
      approvals: (await approvals.list(ctx, { tenant: req.tenant, after: req.after, limit: req.limit })).map(jsonResult),
    })),

    Get: unary(rt, 'ApprovalService/Get', async (ctx, req) => ({ approval: jsonResult(await approvals.get(ctx, approvalId(req.approval_id))) })),

    Revoke: unary(rt, 'ApprovalService/Revoke', async (ctx, req) => {
      const revoked = await operations.approvalRevoke(ctx, approvalId(req.approval_id));
      return { work_unit_id: revoked.work_unit_id, result: jsonResult(revoked) };
    }),

    Redeem: unary(rt, 'ApprovalService/Redeem', async (ctx, req) => {
      const redeemed = await operations.approvalRedeem(ctx, restBody({ tenant: req.tenant, contract: req.contract, work_unit_id: req.work_unit_id }), ctx.approvalToken);
      return { work_unit_id: redeemed.work_unit_id, result: jsonResult(redeemed) };
    }),
  };
}
