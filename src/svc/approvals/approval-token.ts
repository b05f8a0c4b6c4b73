/**
 * Approval tokens: compact JWS (a JWT) signed with EdDSA (Ed25519), header
 * `typ: svc-approval+jwt` and the key's `kid`. The claims repeat the scope so
 * a verifier with only the public key can check it offline; the server also
 * checks its own record (revocation, single use).
 */
import type { KeyObject } from 'node:crypto';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';
import type { ApprovalRecord } from './approval-record.ts';
import type { ApprovalRefusalReason } from './approval-refusal.ts';

export const APPROVAL_TOKEN_TYPE = 'svc-approval+jwt';
export const APPROVAL_ISSUER = 'svc';

/** The scope the token repeats from its record, plus the JWT's own claims. */
export type ApprovalClaims = Pick<ApprovalRecord, 'tenant' | 'contract' | 'bundle_id' | 'bundle_hash' | 'work_unit_id' | 'single_use' | 'actor'> & {
  jti: string;
  iat: number;
  exp: number;
};

export async function signApprovalToken(record: ApprovalRecord, privateKey: KeyObject, kid: string): Promise<string> {
  return new SignJWT({
    tenant: record.tenant,
    contract: record.contract,
    bundle_id: record.bundle_id,
    bundle_hash: record.bundle_hash,
    work_unit_id: record.work_unit_id,
    single_use: record.single_use,
    actor: record.actor,
  })
    .setProtectedHeader({ alg: 'EdDSA', typ: APPROVAL_TOKEN_TYPE, kid })
    .setIssuer(APPROVAL_ISSUER)
    .setJti(record.id)
    .setIssuedAt(Math.floor(Date.parse(record.created_at) / 1000))
    .setExpirationTime(Math.floor(Date.parse(record.expires_at) / 1000))
    .sign(privateKey);
}

export type TokenCheck = { ok: true; claims: ApprovalClaims } | { ok: false; reason: ApprovalRefusalReason; approvalId?: string };

function isClaims(p: Record<string, unknown>): p is ApprovalClaims & Record<string, unknown> {
  return (
    typeof p['jti'] === 'string' &&
    typeof p['tenant'] === 'string' &&
    typeof p['contract'] === 'string' &&
    typeof p['bundle_id'] === 'string' &&
    typeof p['bundle_hash'] === 'string' &&
    (p['work_unit_id'] === null || typeof p['work_unit_id'] === 'string') &&
    typeof p['single_use'] === 'boolean' &&
    typeof p['actor'] === 'string' &&
    typeof p['exp'] === 'number'
  );
}

/** Verifies signature, type, issuer and expiry. Never throws: every failure maps to a refusal reason. */
export async function verifyApprovalToken(token: string, publicKey: KeyObject, now: Date): Promise<TokenCheck> {
  if (token.length > 4096 || token.split('.').length !== 3) return { ok: false, reason: 'malformed' };
  try {
    const { payload } = await jwtVerify(token, publicKey, {
      algorithms: ['EdDSA'],
      typ: APPROVAL_TOKEN_TYPE,
      issuer: APPROVAL_ISSUER,
      currentDate: now,
      requiredClaims: ['jti', 'exp', 'iat'],
    });
    const claims = payload as Record<string, unknown>;
    if (!isClaims(claims)) return { ok: false, reason: 'malformed' };
    return { ok: true, claims };
  } catch (err) {
    if (err instanceof joseErrors.JWTExpired) {
      const jti = (err.payload as Record<string, unknown>)['jti'];
      return { ok: false, reason: 'expired', ...(typeof jti === 'string' ? { approvalId: jti } : {}) };
    }
    if (err instanceof joseErrors.JWSSignatureVerificationFailed) return { ok: false, reason: 'bad_signature' };
    return { ok: false, reason: 'malformed' };
  }
}
