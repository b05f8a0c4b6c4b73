/**
 * What an approval is: a short-lived record bound to a tenant, a contract and
 * a policy bundle (id and hash), optionally to one work unit, signed by the
 * server. The actor is the authenticated principal who created it.
 */
import Type, { type Static } from 'typebox';
import type { BundleRef } from '../policy/types.ts';

export interface ApprovalRecord {
  id: string; // apr_…
  tenant: string;
  contract: string;
  bundle_id: string;
  bundle_hash: string;
  work_unit_id: string | null;
  single_use: boolean;
  actor: string;
  reason: string | null;
  created_at: string; // ISO-8601 UTC
  expires_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  used_at: string | null;
}

/** What an execution presents its approval against. */
export interface ApprovalScope {
  tenant: string;
  contract: string;
  bundle: BundleRef;
  work_unit_id?: string;
}

export const DEFAULT_APPROVAL_TTL_SECONDS = 900;
export const MAX_APPROVAL_TTL_SECONDS = 86_400;

/** `POST /v1/approvals`. There is no actor field: the actor is the caller. */
export const CreateApprovalRequest = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    contract: Type.String({ minLength: 1, maxLength: 64 }),
    /** Optional expectation: refused unless it is the bundle in force. */
    bundle_id: Type.Optional(Type.String({ pattern: '^pb_[0-9a-hjkmnp-tv-z]{26}$' })),
    work_unit_id: Type.Optional(Type.String({ pattern: '^wu_[0-9a-hjkmnp-tv-z]{26}$' })),
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_APPROVAL_TTL_SECONDS })),
    single_use: Type.Optional(Type.Boolean()),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);
export type CreateApprovalRequest = Static<typeof CreateApprovalRequest>;

/**
 * `POST /v1/approvals/redeem`: an executor outside this process (a plugin,
 * an external job runner) checks and consumes an approval for its scope.
 * The token travels in the X-SVC-Approval header, not the body.
 */
export const RedeemApprovalRequest = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    contract: Type.String({ minLength: 1, maxLength: 64 }),
    work_unit_id: Type.Optional(Type.String({ pattern: '^wu_[0-9a-hjkmnp-tv-z]{26}$' })),
  },
  { additionalProperties: false },
);

/** Name of the header an execution request carries its approval token in. */
export const APPROVAL_HEADER = 'x-svc-approval';

/** An approval id as a path parameter (REST) or field (gRPC): malformed ids are a 400 on both. */
export const ApprovalIdParams = Type.Object({ id: Type.String({ pattern: '^apr_[0-9a-hjkmnp-tv-z]{26}$' }) });
