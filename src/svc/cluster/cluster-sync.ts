/**
 * Keeps the state each svc process holds in memory for the hot path — the
 * policy bundle in force and the rollback switches — the same across every
 * process of a deployment. The ledger is the change feed: every change writes
 * an event (`policy.bundle.published`, `policy.bundle.reloaded`,
 * `admin.switch.changed`) after its data is in the shared database, so a
 * process that reads the event can adopt the change. Each process polls the
 * ledger for those event types (an indexed read after the last sequence it
 * saw) every `cluster.sync_interval_ms`; at start it replays the newest event
 * of each kind, so a process that was down while a bundle was published starts
 * with it. A process applying its own event again changes nothing (adoption is
 * by content hash). Decision 097.
 */
import type { OpLog } from '../logs/oplog.ts';
import type { PolicyService } from '../policy/policy-service.ts';
import type { Switchboard } from '../rollout/switchboard.ts';
import type { LedgerRepository } from '../store/repositories/ledger.ts';

export const SYNC_EVENT_TYPES = ['policy.bundle.published', 'policy.bundle.reloaded', 'admin.switch.changed'] as const;

export interface ClusterSyncDeps {
  ledgerRepo: LedgerRepository;
  policy: PolicyService;
  switchboard: Switchboard;
  log: OpLog;
  /** Poll interval; 0 disables polling (a single process). */
  intervalMs: number;
}

export class ClusterSync {
  readonly #deps: ClusterSyncDeps;
  #after = 0;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  /** Changes adopted from the feed, and changes that could not be (logged). */
  adopted = 0;
  failed = 0;

  constructor(deps: ClusterSyncDeps) {
    this.#deps = deps;
  }

  /** Replays the newest event of each kind, then polls from the ledger head. */
  async start(): Promise<void> {
    const head = await this.#deps.ledgerRepo.head();
    this.#after = head?.seq ?? 0;
    const newest = await this.#deps.ledgerRepo.newestOfTypes(SYNC_EVENT_TYPES);
    for (const row of newest) await this.#applySafely(row);
    if (this.#deps.intervalMs > 0) this.#schedule();
  }

  #schedule(): void {
    this.#timer = setTimeout(() => {
      this.#running = this.tick()
        .catch((err) => this.#deps.log.alert({ event_type: 'cluster.sync_failed', error: (err as Error).message }, 'cluster sync failed; retrying'))
        .finally(() => {
          this.#running = undefined;
          if (this.#timer) this.#schedule();
        });
    }, this.#deps.intervalMs);
    this.#timer.unref();
  }

  /** Reads the feed once to its end and applies what changed; returns how many events it applied. */
  async tick(): Promise<number> {
    let applied = 0;
    for (;;) {
      // An indexed read of the three event types after the last one seen, not a scan of every new ledger row.
      const rows = await this.#deps.ledgerRepo.query({ eventTypes: SYNC_EVENT_TYPES, afterSeq: this.#after, limit: 500 });
      for (const row of rows) {
        await this.#applySafely(row);
        this.#after = Number(row.seq);
        applied++;
      }
      if (rows.length < 500) return applied;
    }
  }

  /**
   * One event; a change that cannot be adopted (a bundle announced before this build shared bundle documents, a
   * document that no longer validates) is logged as an alert and skipped, never a reason to stop serving: the
   * process keeps the bundle it has, as after a failed reload.
   */
  async #applySafely(row: { seq: number | string; type: string; payload: string }): Promise<void> {
    try {
      await this.#apply(row.type, JSON.parse(row.payload));
    } catch (err) {
      this.failed++;
      this.#deps.log.alert({ event_type: 'cluster.sync_adopt_failed', ledger_seq: Number(row.seq), source_event: row.type, error: (err as Error).message }, 'could not adopt a change made by another process');
    }
  }

  async #apply(type: string, payload: unknown): Promise<void> {
    const p = payload as Record<string, any>;
    if (type === 'admin.switch.changed') {
      await this.#deps.switchboard.refresh();
      const bundle = p['switch'] === 'policy_bundle' ? p['effect']?.bundle : undefined;
      if (bundle?.hash && (await this.#deps.policy.adopt({ hash: bundle.hash }, { activateName: true }))) this.adopted++;
      return;
    }
    if (typeof p['bundle_hash'] === 'string' && (await this.#deps.policy.adopt({ hash: p['bundle_hash'] }))) this.adopted++;
  }

  async stop(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }
}
