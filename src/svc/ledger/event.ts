/**
 * The ledger event record and its canonical form. The hash covers every
 * stored column, so changing any byte of a stored event breaks the chain at
 * that event.
 */

export interface LedgerEvent {
  seq: number;
  id: string; // evt_…
  ts: string; // ISO 8601 UTC
  type: string;
  tenant: string | null;
  actor: string;
  work_unit_id: string | null;
  manifest_id: string | null;
  policy_bundle_id: string | null;
  trace_id: string | null;
  payload: Record<string, unknown>;
  prev_hash: string;
  hash: string;
}

/** What a caller supplies; the appender assigns seq, id, ts and hashes. */
export interface LedgerEventInput {
  /** A pre-assigned id (`newId('evt')`), for a record written in the same commit that refers to this event; otherwise assigned on append. */
  id?: string;
  type: string;
  tenant?: string | null;
  actor: string;
  work_unit_id?: string | null;
  manifest_id?: string | null;
  policy_bundle_id?: string | null;
  trace_id?: string | null;
  payload?: Record<string, unknown>;
}

/** The row as stored: payload is canonical JSON text. */
export interface LedgerRow extends Omit<LedgerEvent, 'payload'> {
  payload: string;
}

const s = (v: string | null): string => (v === null ? 'null' : JSON.stringify(v));

/**
 * Canonical (RFC 8785) text of a stored row without its hashes. Built by hand
 * with the keys in sorted order because verification runs it a million times;
 * `payload` is already canonical JSON. Equal to `canonicalJson(row minus hashes)`
 * — a unit test holds the two together.
 */
export function canonicalEventBody(row: Omit<LedgerRow, 'prev_hash' | 'hash'>): string {
  return (
    `{"actor":${s(row.actor)},"id":${s(row.id)},"manifest_id":${s(row.manifest_id)},"payload":${row.payload}` +
    `,"policy_bundle_id":${s(row.policy_bundle_id)},"seq":${row.seq},"tenant":${s(row.tenant)},"trace_id":${s(row.trace_id)}` +
    `,"ts":${s(row.ts)},"type":${s(row.type)},"work_unit_id":${s(row.work_unit_id)}}`
  );
}

export function rowToEvent(row: LedgerRow): LedgerEvent {
  return { ...row, seq: Number(row.seq), payload: JSON.parse(row.payload) as Record<string, unknown> };
}

/**
 * `rowToEvent` for rows just committed: the payload is parsed when first
 * read. The appender hands every committed event to its callers and
 * listeners, and on the AI hot path none of them reads the payload (parsing
 * it back was ~10% of recording a request). The property is an own,
 * enumerable accessor, so spreads and `JSON.stringify` see the parsed value.
 */
export function committedEvent(row: LedgerRow): LedgerEvent {
  const text = row.payload;
  let parsed: Record<string, unknown> | undefined;
  const event = { ...row, seq: Number(row.seq) } as unknown as LedgerEvent;
  Object.defineProperty(event, 'payload', {
    enumerable: true,
    configurable: true,
    get: () => (parsed ??= JSON.parse(text) as Record<string, unknown>),
    set: (value: Record<string, unknown>) => {
      parsed = value;
    },
  });
  return event;
}
