/** An in-memory `SwitchStore` for domain tests; the service persists switches in SQL. */
import type { Switches, SwitchStore } from '../../../src/svc/rollout/switches.ts';

export class MemorySwitchStore implements SwitchStore {
  saved: Switches | undefined;
  saves = 0;

  async load(): Promise<Switches | undefined> {
    return this.saved ? structuredClone(this.saved) : undefined;
  }

  async save(switches: Switches): Promise<void> {
    this.saves++;
    this.saved = structuredClone(switches);
  }
}
