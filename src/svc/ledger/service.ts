/**
 * Ledger reads for clients: filtered queries, a resumable live stream, and
 * whole-chain verification. Appends go through `LedgerAppender`.
 */
import { Type, type Static } from 'typebox';
import { requirePermission } from '../auth/principal.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { RequestContext } from '../context.ts';
import type { LedgerRepository } from '../store/repositories/ledger.ts';
import { validate } from '../validation.ts';
import type { LedgerAppender } from './appender.ts';
import { type LedgerEvent, rowToEvent } from './event.ts';
import { type LedgerVerifyReport, verifyLedger } from './verify.ts';
import type { DbTarget } from '../store/open-db.ts';

export const LEDGER_QUERY_DEFAULT_LIMIT = 500;
export const LEDGER_QUERY_MAX_LIMIT = 5000;

export const LedgerQueryBody = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1 })),
    from: Type.Optional(Type.String({ format: 'date-time' })),
    to: Type.Optional(Type.String({ format: 'date-time' })),
    event_types: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 50 })),
    after_seq: Type.Optional(Type.Integer({ minimum: 0, description: 'Cursor: return events after this sequence number.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LEDGER_QUERY_MAX_LIMIT })),
  },
  { additionalProperties: false },
);
export type LedgerQueryBody = Static<typeof LedgerQueryBody>;

function isoOrThrow(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return undefined;
  return d.toISOString();
}

export interface StreamFilter {
  tenant: string | undefined;
  eventTypes: ReadonlySet<string> | undefined;
}

export class LedgerService {
  readonly #repo: LedgerRepository;
  /** Where the ledger lives, so large verifications can run in worker threads. */
  readonly #target: DbTarget | undefined;
  readonly #appender: LedgerAppender;
  readonly #tenants: TenantGuard;

  constructor(deps: { repo: LedgerRepository; appender: LedgerAppender; tenants: TenantGuard; target?: DbTarget }) {
    this.#repo = deps.repo;
    this.#target = deps.target;
    this.#appender = deps.appender;
    this.#tenants = deps.tenants;
  }

  async query(ctx: RequestContext, input: unknown): Promise<{ events: LedgerEvent[]; next_after_seq: number | null }> {
    requirePermission(ctx.principal, 'ledger:read');
    const q = validate(LedgerQueryBody, input ?? {});
    const tenant = await this.#tenants.filter(ctx, q.tenant, 'ledger.query.tenant');
    const limit = q.limit ?? LEDGER_QUERY_DEFAULT_LIMIT;
    const rows = await this.#repo.query({ tenant, from: isoOrThrow(q.from), to: isoOrThrow(q.to), eventTypes: q.event_types, afterSeq: q.after_seq, limit });
    const events = rows.map(rowToEvent);
    return { events, next_after_seq: events.length === limit ? events[events.length - 1]!.seq : null };
  }

  /** Validates a stream request and returns its filter (tenant binding applies). */
  async streamFilter(ctx: RequestContext, tenant: string | undefined, eventTypes: string[] | undefined): Promise<StreamFilter> {
    requirePermission(ctx.principal, 'ledger:read');
    return {
      tenant: await this.#tenants.filter(ctx, tenant, 'ledger.stream.tenant'),
      eventTypes: eventTypes && eventTypes.length > 0 ? new Set(eventTypes) : undefined,
    };
  }

  /** Where a stream without a resume point starts: after the newest event (0 for an empty ledger). */
  async headSeq(): Promise<number> {
    return (await this.#repo.head())?.seq ?? 0;
  }

  /** Events after `afterSeq` that match the filter, in chain order (one page). */
  async since(filter: StreamFilter, afterSeq: number, limit = 500): Promise<{ events: LedgerEvent[]; lastSeq: number }> {
    const rows = await this.#repo.scan(afterSeq, limit);
    const lastSeq = rows.length > 0 ? Number(rows[rows.length - 1]!.seq) : afterSeq;
    const events = rows
      .map(rowToEvent)
      .filter((e) => (filter.tenant === undefined || e.tenant === filter.tenant) && (!filter.eventTypes || filter.eventTypes.has(e.type)));
    return { events, lastSeq };
  }

  /** Calls `onAppend` after each committed batch in this process (other processes are caught by polling). */
  subscribe(onAppend: () => void): () => void {
    this.#appender.events.on('appended', onAppend);
    return () => this.#appender.events.off('appended', onAppend);
  }

  async verify(ctx: RequestContext): Promise<LedgerVerifyReport> {
    requirePermission(ctx.principal, 'ledger:read');
    return verifyLedger(this.#repo, this.#target ? { target: this.#target } : {});
  }
}
