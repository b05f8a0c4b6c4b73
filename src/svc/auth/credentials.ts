/**
 * Credentials → principals. Tokens come only from the environment
 * (`SVC_LOCAL_API_KEY`, `SVC_API_KEYS_JSON`) or, for local development, a
 * generated key file; only their SHA-256 digests stay in memory. What a
 * token may do comes from this configuration alone: the token's text is
 * opaque, so `admin:anything` grants nothing.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TokenDigestIndex, tokenDigest } from '../../core/secret-compare.ts';
import { SvcError } from '../errors.ts';
import { type Principal, makePrincipal } from './principal.ts';
import { type Role, isRole } from './roles.ts';

export const LOCAL_ADMIN_ACTOR = 'local-admin';
export const DEV_KEY_FILE = 'dev-api-key';

export interface Credentials {
  index: TokenDigestIndex<Principal>;
  /** Set when a development key was generated or reused from the state dir. */
  devKeyFile?: string;
}

function parseKeysJson(json: string): Array<{ token: string; principal: Principal }> {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (err) {
    throw new SvcError('invalid_request', `SVC_API_KEYS_JSON is not valid JSON: ${(err as Error).message}`);
  }
  if (!doc || typeof doc !== 'object' || Array.isArray(doc)) {
    throw new SvcError('invalid_request', 'SVC_API_KEYS_JSON must be an object mapping tokens to {actor, tenant?, roles[]}');
  }
  return Object.entries(doc as Record<string, unknown>).map(([token, spec], i) => {
    const where = `SVC_API_KEYS_JSON entry #${i + 1}`; // never echo the token itself
    if (token.length < 16) throw new SvcError('invalid_request', `${where}: tokens must be at least 16 characters (generate one with \`openssl rand -hex 24\`)`);
    const s = spec as { actor?: unknown; tenant?: unknown; roles?: unknown };
    if (!s || typeof s !== 'object') throw new SvcError('invalid_request', `${where}: value must be an object`);
    const extra = Object.keys(s).filter((k) => !['actor', 'tenant', 'roles'].includes(k));
    if (extra.length) throw new SvcError('invalid_request', `${where}: unknown key(s) ${extra.join(', ')}`);
    if (typeof s.actor !== 'string' || s.actor === '') throw new SvcError('invalid_request', `${where}: actor must be a non-empty string`);
    if (s.tenant !== undefined && (typeof s.tenant !== 'string' || s.tenant === '')) throw new SvcError('invalid_request', `${where}: tenant must be a non-empty string`);
    if (!Array.isArray(s.roles) || s.roles.some((r) => typeof r !== 'string' || !isRole(r))) {
      throw new SvcError('invalid_request', `${where}: roles must be a list of known roles (admin, operator, writer, reader, auditor, policy-publisher, approver)`);
    }
    return { token, principal: makePrincipal(s.actor, s.roles as Role[], s.tenant as string | undefined) };
  });
}

export interface CredentialSources {
  localApiKey: string | undefined;
  apiKeysJson: string | undefined;
  stateDir: string;
  /** Generate (or reuse) `<state_dir>/dev-api-key` when no key is configured. */
  allowDevKey: boolean;
}

export function loadCredentials(src: CredentialSources): Credentials {
  const index = new TokenDigestIndex<Principal>();
  const creds: Credentials = { index };
  let localKey = src.localApiKey;
  if (!localKey && !src.apiKeysJson && src.allowDevKey) {
    const file = path.join(src.stateDir, DEV_KEY_FILE);
    if (existsSync(file)) {
      localKey = readFileSync(file, 'utf8').trim();
    } else {
      mkdirSync(src.stateDir, { recursive: true });
      localKey = `svc_dev_${randomBytes(24).toString('base64url')}`;
      writeFileSync(file, `${localKey}\n`, { mode: 0o600 });
      chmodSync(file, 0o600);
    }
    creds.devKeyFile = file;
  }
  if (localKey) index.add(tokenDigest(localKey), makePrincipal(LOCAL_ADMIN_ACTOR, ['admin']));
  if (src.apiKeysJson) for (const { token, principal } of parseKeysJson(src.apiKeysJson)) index.add(tokenDigest(token), principal);
  return creds;
}

/** Reads the credential from `X-API-Key` or `Authorization: Bearer`. Both present and different → rejected. */
export function presentedToken(headers: Record<string, string | string[] | undefined>): string | undefined {
  const apiKey = headers['x-api-key'];
  const auth = headers.authorization;
  const key = typeof apiKey === 'string' && apiKey !== '' ? apiKey : undefined;
  const bearer = typeof auth === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(auth)?.[1] : undefined;
  if (key !== undefined && bearer !== undefined && key !== bearer) return undefined;
  return key ?? bearer;
}

export function authenticate(creds: Credentials, headers: Record<string, string | string[] | undefined>): Principal {
  const token = presentedToken(headers);
  if (token === undefined) throw new SvcError('unauthenticated', 'missing credential: send X-API-Key: <token> or Authorization: Bearer <token>');
  const principal = creds.index.match(token);
  if (!principal) throw new SvcError('unauthenticated', 'unknown credential');
  return principal;
}
