/**
 * Reads operational log entries back (POST /v1/logs/query). Entries were
 * redacted when written; the query filters by tenant and event type and
 * returns the newest `limit` entries, newest last.
 */
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Type, type Static } from 'typebox';

export const LOG_QUERY_DEFAULT_LIMIT = 100;
export const LOG_QUERY_MAX_LIMIT = 1000;

export const LogQuery = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1 })),
    event_types: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { maxItems: 50 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: LOG_QUERY_MAX_LIMIT, default: LOG_QUERY_DEFAULT_LIMIT })),
  },
  { additionalProperties: false },
);
export type LogQuery = Static<typeof LogQuery>;

export type LogEntry = Record<string, unknown>;

export async function queryLogFile(file: string | undefined, q: { tenant: string | undefined; eventTypes: readonly string[] | undefined; limit: number }): Promise<LogEntry[]> {
  if (!file || !existsSync(file)) return [];
  const ring: LogEntry[] = [];
  const types = q.eventTypes && q.eventTypes.length > 0 ? new Set(q.eventTypes) : undefined;
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    if (line === '') continue;
    let entry: LogEntry;
    try {
      entry = JSON.parse(line) as LogEntry;
    } catch {
      continue; // a torn last line after a crash
    }
    if (q.tenant !== undefined && entry.tenant !== q.tenant) continue;
    if (types && !types.has(String(entry.event_type))) continue;
    ring.push(entry);
    if (ring.length > q.limit) ring.shift();
  }
  return ring;
}
