/** The admin switch state (src/svc/rollout/switches.ts), one JSON document per scope. */
import { DEFAULT_SWITCHES, type Switches, type SwitchStore } from '../../rollout/switches.ts';
import type { Db } from '../db.ts';

const GLOBAL = 'global';

export class SqlSwitchStore implements SwitchStore {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async load(): Promise<Switches | undefined> {
    const row = await this.#db.get<{ body: string }>('SELECT body FROM admin_switches WHERE scope = $1', [GLOBAL]);
    // Fields added in later releases take their defaults when an older row is read.
    return row ? { ...DEFAULT_SWITCHES, ...(JSON.parse(row.body) as Partial<Switches>) } : undefined;
  }

  async save(s: Switches): Promise<void> {
    await this.#db.run(
      `INSERT INTO admin_switches (scope, body, updated_at, updated_by) VALUES ($1, $2, $3, $4)
       ON CONFLICT (scope) DO UPDATE SET body = excluded.body, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      [GLOBAL, JSON.stringify(s), s.updated_at ?? new Date().toISOString(), s.updated_by ?? 'system'],
    );
  }
}
