/**
 * One asynchronous SQL interface over both engines. Repositories write each
 * statement once, with `$1, $2, …` placeholders and portable SQL (ON CONFLICT,
 * RETURNING, TEXT for JSON and timestamps, INTEGER 0/1 for booleans); the
 * drivers take care of the rest.
 */

export type SqlValue = string | number | bigint | null | Uint8Array;

export type Dialect = 'sqlite' | 'postgres';

export interface Db {
  readonly dialect: Dialect;
  all<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  get<T = Record<string, unknown>>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** Rows as arrays in column order: cheaper than objects for large scans (ledger verification). */
  values(sql: string, params?: readonly SqlValue[]): Promise<unknown[][]>;
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
  /** Runs several statements separated by semicolons (migrations). No parameters. */
  exec(sql: string): Promise<void>;
  /**
   * Runs `fn` in one transaction. On PostgreSQL it owns a pooled connection;
   * on SQLite the single connection is held exclusively (other callers wait),
   * so no statement of another request can slip into it.
   */
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T>;
  /**
   * Serialises writers of the ledger chain across processes: an advisory
   * transaction lock on PostgreSQL; a no-op on SQLite, where the write
   * transaction (BEGIN IMMEDIATE) already excludes other writers.
   * Must be called inside `transaction`.
   */
  lockChain(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Rows come back with numbers for integer columns on both engines; booleans are 0/1. */
export function toBool(v: unknown): boolean {
  return v === 1 || v === true || v === '1' || v === 't';
}

export function fromBool(v: boolean): number {
  return v ? 1 : 0;
}
