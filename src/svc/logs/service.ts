/** Operational log queries with tenant binding. */
import { requirePermission } from '../auth/principal.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { RequestContext } from '../context.ts';
import { validate } from '../validation.ts';
import type { OpLog } from './oplog.ts';
import { LOG_QUERY_DEFAULT_LIMIT, LogQuery, type LogEntry, queryLogFile } from './query.ts';

export class LogService {
  readonly #log: OpLog;
  readonly #tenants: TenantGuard;
  constructor(deps: { log: OpLog; tenants: TenantGuard }) {
    this.#log = deps.log;
    this.#tenants = deps.tenants;
  }

  async query(ctx: RequestContext, input: unknown): Promise<{ entries: LogEntry[] }> {
    requirePermission(ctx.principal, 'logs:read');
    const q = validate(LogQuery, input ?? {});
    const tenant = await this.#tenants.filter(ctx, q.tenant, 'logs.query.tenant');
    await this.#log.flush();
    return { entries: await queryLogFile(this.#log.file, { tenant, eventTypes: q.event_types, limit: q.limit ?? LOG_QUERY_DEFAULT_LIMIT }) };
  }
}
