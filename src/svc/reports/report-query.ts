/**
 * The filters every report takes: a tenant (bound principals are pinned to
 * theirs by the TenantGuard) and a time window `[from, to)`. The window is
 * closed at `to`, which never lies after the moment the report is computed,
 * so a report can be recomputed later from the same rows.
 */
import { type Static, Type } from 'typebox';
import { SvcError } from '../errors.ts';
import { validate } from '../validation.ts';

export const ReportQuery = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    /** ISO 8601 start (inclusive); default: `to` minus `reports.default_window_days`. */
    from: Type.Optional(Type.String({ minLength: 1 })),
    /** ISO 8601 end (exclusive); default and upper bound: now. */
    to: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type ReportQuery = Static<typeof ReportQuery>;

export interface ReportWindow {
  from: string;
  to: string;
}

function parseInstant(raw: string, name: string): number {
  // Date.parse accepts many shapes; require ISO 8601 with a date part at least.
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2})?)?$/.test(raw)) throw new SvcError('invalid_request', `${name} must be an ISO 8601 timestamp`);
  const t = Date.parse(raw);
  if (Number.isNaN(t)) throw new SvcError('invalid_request', `${name} must be an ISO 8601 timestamp`);
  return t;
}

export function resolveWindow(input: unknown, defaultDays: number, now: Date = new Date()): { query: ReportQuery; window: ReportWindow } {
  const query = validate(ReportQuery, input ?? {});
  const nowMs = now.getTime();
  const to = Math.min(query.to === undefined ? nowMs : parseInstant(query.to, 'to'), nowMs);
  const from = query.from === undefined ? to - defaultDays * 86_400_000 : parseInstant(query.from, 'from');
  if (from >= to) throw new SvcError('invalid_request', 'from must be earlier than to (and than now)');
  return { query, window: { from: new Date(from).toISOString(), to: new Date(to).toISOString() } };
}
