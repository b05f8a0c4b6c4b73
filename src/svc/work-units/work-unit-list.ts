/**
 * The work-unit list (`GET /v1/work-units`, `WorkUnitService.ListWorkUnits`,
 * `svc work-units list`): filters by tenant, kind, state and creation time,
 * oldest first, paged with an opaque continuation token. The query schema
 * is defined once here (validation, types, OpenAPI).
 */
import { Type, type Static } from 'typebox';
import { decodeContinuationToken as decodeToken, encodeContinuationToken as encodeToken } from '../continuation-token.ts';
import { SvcError } from '../errors.ts';

export const DEFAULT_LIST_LIMIT = 100;
export const MAX_LIST_LIMIT = 1000;

/** ISO 8601 / RFC 3339 timestamp with a time zone, e.g. `2026-11-24T12:00:00Z`. */
const TIMESTAMP_PATTERN = '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:\\d{2})$';

export const WorkUnitListQuery = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: 'Tenant-bound keys may only name their own tenant (default: it).' })),
    kind: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_]*$', description: 'e.g. byte_object, prompt_request, cache_store, object_delete' })),
    state: Type.Optional(Type.Union([Type.Literal('created'), Type.Literal('planned'), Type.Literal('executed'), Type.Literal('failed')])),
    from: Type.Optional(Type.String({ pattern: TIMESTAMP_PATTERN, description: 'Created at or after (ISO 8601 with zone).' })),
    to: Type.Optional(Type.String({ pattern: TIMESTAMP_PATTERN, description: 'Created before (ISO 8601 with zone).' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIST_LIMIT, description: `Page size (default ${DEFAULT_LIST_LIMIT}).` })),
    continuation_token: Type.Optional(Type.String({ minLength: 1, maxLength: 256, description: 'next_continuation_token of the previous page.' })),
  },
  { additionalProperties: false },
);
export type WorkUnitListQuery = Static<typeof WorkUnitListQuery>;

const WORK_UNIT_ID = /^wu_[0-9a-hjkmnp-tv-z]{26}$/;

/**
 * The scope names the tenant listed (`*`: every tenant, an unbound caller), so a token issued to one tenant is
 * refused for another exactly like a token this service never issued (decision 096).
 */
const tokenScope = (tenant: string | undefined): string => (tenant === undefined ? 'wul2/*' : `wul2/t:${encodeURIComponent(tenant)}`);

/** The token after a page: the last work unit id, opaque to clients. */
export function encodeContinuationToken(lastId: string, tenant: string | undefined): string {
  return encodeToken(tokenScope(tenant), lastId);
}

/** The last id of the previous page; a token this service did not issue for this listing is a 400, never an empty page. */
export function decodeContinuationToken(token: string, tenant: string | undefined): string {
  return decodeToken(tokenScope(tenant), token, (id) => WORK_UNIT_ID.test(id));
}

/** A timestamp the schema let through, normalised for comparison with stored `created_at` (ISO UTC). */
export function normaliseTimestamp(value: string, name: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new SvcError('invalid_request', `${name} is not a valid ISO 8601 timestamp: ${value}`, { details: { param: name } });
  return new Date(ms).toISOString();
}
