/**
 * PostgreSQL driver on `pg`. Integer columns (int8) are parsed as JS numbers:
 * every count we store (bytes, sequence numbers) stays far below 2^53.
 * An optional `search_path` schema isolates test runs from each other.
 */
import pg from 'pg';
import type { Db, SqlValue } from './db.ts';

const INT8_OID = 20;
const NUMERIC_OID = 1700;
const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (v: string) => Number(v);
    return pg.types.getTypeParser(oid, format);
  },
};

type Queryable = pg.Pool | pg.PoolClient;

function params(values: readonly SqlValue[]): unknown[] {
  return values.map((v) => (v instanceof Uint8Array ? Buffer.from(v.buffer, v.byteOffset, v.byteLength) : v));
}

function makeOps(q: Queryable) {
  return {
    async all<T>(sql: string, values: readonly SqlValue[] = []): Promise<T[]> {
      return (await q.query(sql, params(values))).rows as T[];
    },
    async get<T>(sql: string, values: readonly SqlValue[] = []): Promise<T | undefined> {
      return (await q.query(sql, params(values))).rows[0] as T | undefined;
    },
    async values(sql: string, values: readonly SqlValue[] = []): Promise<unknown[][]> {
      return (await q.query({ text: sql, values: params(values), rowMode: 'array' })).rows as unknown[][];
    },
    async run(sql: string, values: readonly SqlValue[] = []): Promise<{ changes: number }> {
      return { changes: (await q.query(sql, params(values))).rowCount ?? 0 };
    },
    async exec(sql: string): Promise<void> {
      await q.query(sql);
    },
  };
}

/** Stable 32-bit key for pg_advisory_xact_lock from a lock name. */
function lockKey(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return h | 0;
}

export class PostgresDb implements Db {
  readonly dialect = 'postgres' as const;
  readonly #pool: pg.Pool;
  readonly #ops;

  constructor(url: string, options: { schema?: string; max?: number } = {}) {
    const config: pg.PoolConfig = { connectionString: url, max: options.max ?? 10, types };
    if (options.schema) config.options = `-c search_path=${options.schema}`;
    this.#pool = new pg.Pool(config);
    // An idle client's network error must not crash the process; the next query reports it.
    this.#pool.on('error', () => undefined);
    this.#ops = makeOps(this.#pool);
  }

  all<T>(sql: string, values?: readonly SqlValue[]): Promise<T[]> {
    return this.#ops.all<T>(sql, values);
  }
  get<T>(sql: string, values?: readonly SqlValue[]): Promise<T | undefined> {
    return this.#ops.get<T>(sql, values);
  }
  values(sql: string, values?: readonly SqlValue[]): Promise<unknown[][]> {
    return this.#ops.values(sql, values);
  }
  run(sql: string, values?: readonly SqlValue[]): Promise<{ changes: number }> {
    return this.#ops.run(sql, values);
  }
  exec(sql: string): Promise<void> {
    return this.#ops.exec(sql);
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    const ops = makeOps(client);
    const tx: Db = {
      dialect: 'postgres',
      ...ops,
      transaction: () => Promise.reject(new Error('nested transactions are not supported')),
      lockChain: async (name: string) => {
        await client.query('SELECT pg_advisory_xact_lock($1)', [lockKey(name)]);
      },
      close: () => Promise.reject(new Error('cannot close inside a transaction')),
    };
    try {
      await client.query('BEGIN');
      const result = await fn(tx);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }

  async lockChain(): Promise<void> {
    throw new Error('lockChain must be called on a transaction handle');
  }

  async close(): Promise<void> {
    await this.#pool.end();
  }
}
