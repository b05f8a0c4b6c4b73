/**
 * Every way a presented approval can be refused, each with its own reason so
 * clients and auditors can tell them apart. A missing approval is
 * `approval_required`; every other refusal is `approval_invalid`, with the
 * reason in `details.reason`.
 */
import { SvcError } from '../errors.ts';

export const APPROVAL_REFUSAL_REASONS = [
  'missing',
  'malformed',
  'bad_signature',
  'expired',
  'unknown',
  'revoked',
  'replayed',
  'tenant_mismatch',
  'contract_mismatch',
  'bundle_mismatch',
  'work_unit_mismatch',
] as const;

export type ApprovalRefusalReason = (typeof APPROVAL_REFUSAL_REASONS)[number];

const MESSAGES: Record<ApprovalRefusalReason, string> = {
  missing: 'this action requires a signed approval; present one in the X-SVC-Approval header',
  malformed: 'the approval is not a well-formed svc approval token',
  bad_signature: 'the approval signature does not verify (the token was altered or signed by another key)',
  expired: 'the approval has expired',
  unknown: 'the approval is not known to this server',
  revoked: 'the approval has been revoked',
  replayed: 'the single-use approval has already been used',
  tenant_mismatch: 'the approval was issued for another tenant',
  contract_mismatch: 'the approval was issued for another contract',
  bundle_mismatch: 'the approval was issued under another policy bundle',
  work_unit_mismatch: 'the approval was issued for another work unit',
};

export function approvalRefusal(reason: ApprovalRefusalReason, approvalId?: string): SvcError {
  return new SvcError(reason === 'missing' ? 'approval_required' : 'approval_invalid', MESSAGES[reason], {
    retryable: false,
    details: { reason, ...(approvalId ? { approval_id: approvalId } : {}) },
  });
}
