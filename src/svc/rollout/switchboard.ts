/**
 * Holds the rollback switches in memory for the hot path and applies
 * changes: permission check, side effect (clear the semantic cache, switch
 * the policy bundle), persist, then one `admin.switch.changed` ledger event
 * per change with the state before and after. Changes are serialised, so two
 * operators flipping switches at once cannot lose an update.
 */
import { requirePermission, resolveTenant } from '../auth/principal.ts';
import { SvcError } from '../errors.ts';
import { validate } from '../validation.ts';
import type { AuditSink, DomainContext } from '../policy/audit-event.ts';
import type { BundleRef } from '../policy/types.ts';
import { KNOWN_REDUCERS } from '../policy/semantic-actions.ts';
import { applySwitchChange, DEFAULT_SWITCHES, SwitchChange, type Switches, type SwitchStore } from './switches.ts';

/** Clears semantic cache entries (all tenants when `tenant` is undefined); returns how many were removed. */
export type SemanticCacheClearer = (tenant: string | undefined) => Promise<number>;
/** Puts a bundle in force; `null` means the configured bundle. */
export type BundleSwitcher = (target: { name: string; version: string | null } | null) => Promise<BundleRef>;

export interface SwitchboardOptions {
  store: SwitchStore;
  audit: AuditSink;
  switchPolicyBundle?: BundleSwitcher;
  now?: () => Date;
}

export interface SwitchResult {
  switches: Switches;
  /** What the side effect did, e.g. `{ cleared: 12 }` or the bundle now in force. */
  effect?: Record<string, unknown>;
}

export class Switchboard {
  #state: Switches;
  #queue: Promise<unknown> = Promise.resolve();
  readonly #store: SwitchStore;
  readonly #audit: AuditSink;
  readonly #now: () => Date;
  #switchPolicyBundle: BundleSwitcher | undefined;
  readonly #cacheClearers: SemanticCacheClearer[] = [];

  private constructor(state: Switches, options: SwitchboardOptions) {
    this.#state = state;
    this.#store = options.store;
    this.#audit = options.audit;
    this.#now = options.now ?? (() => new Date());
    this.#switchPolicyBundle = options.switchPolicyBundle;
  }

  /** Loads the persisted state (defaults when none) and, if a bundle switch was persisted, re-applies it. */
  static async open(options: SwitchboardOptions): Promise<Switchboard> {
    const saved = await options.store.load();
    const board = new Switchboard({ ...DEFAULT_SWITCHES, ...saved }, options);
    if (board.#state.policy_bundle && board.#switchPolicyBundle) await board.#switchPolicyBundle(board.#state.policy_bundle);
    return board;
  }

  /** The current switches; synchronous and allocation-free for the hot path. Treat as read-only. */
  current(): Readonly<Switches> {
    return this.#state;
  }

  /** The AI cache registers how to clear its semantic entries; until one registers, the switch is refused. */
  registerSemanticCacheClearer(clear: SemanticCacheClearer): void {
    this.#cacheClearers.push(clear);
  }

  setBundleSwitcher(switcher: BundleSwitcher): void {
    this.#switchPolicyBundle = switcher;
  }

  /**
   * Re-reads the persisted switches after another svc process changed them (cluster sync). Serialised with local
   * changes. The side effects ran on the process that made the change: the semantic cache is shared, and a bundle
   * switch is adopted by the sync from the shared bundle documents.
   */
  refresh(): Promise<boolean> {
    const run = this.#queue.then(async () => {
      const next = { ...DEFAULT_SWITCHES, ...(await this.#store.load()) };
      const changed = JSON.stringify(next) !== JSON.stringify(this.#state);
      this.#state = next;
      return changed;
    });
    this.#queue = run.catch(() => undefined);
    return run;
  }

  /** Validates and applies one change (requires `admin:switches`). */
  apply(ctx: DomainContext, body: unknown): Promise<SwitchResult> {
    requirePermission(ctx.principal, 'admin:switches');
    const change = validate(SwitchChange, body);
    if (change.switch === 'disable_reducer' && !KNOWN_REDUCERS.includes(change.name)) {
      throw new SvcError('invalid_request', `unknown reducer '${change.name}'; valid reducers: ${KNOWN_REDUCERS.join(', ')}`, { details: { name: change.name, valid: KNOWN_REDUCERS } });
    }
    const run = this.#queue.then(() => this.#apply(ctx, change));
    this.#queue = run.catch(() => undefined);
    return run;
  }

  async #apply(ctx: DomainContext, change: SwitchChange): Promise<SwitchResult> {
    const before = this.#state;
    let effect: Record<string, unknown> | undefined;
    let tenantForEvent = resolveTenant(ctx.principal, undefined);
    if (change.switch === 'clear_semantic_cache') {
      if (this.#cacheClearers.length === 0) throw new SvcError('unavailable', 'no semantic cache is registered with this server, so there is nothing to clear');
      // A tenant-bound operator may only clear its own tenant.
      const tenant = ctx.principal.tenant !== undefined || change.tenant !== undefined ? resolveTenant(ctx.principal, change.tenant) : undefined;
      let cleared = 0;
      for (const clear of this.#cacheClearers) cleared += await clear(tenant);
      effect = { cleared, tenant: tenant ?? null };
      if (tenant) tenantForEvent = tenant;
    } else if (change.switch === 'policy_bundle') {
      if (!this.#switchPolicyBundle) throw new SvcError('unavailable', 'policy bundle switching is not wired in this server');
      const target = change.name === null ? null : { name: change.name, version: change.version ?? null };
      const bundle = await this.#switchPolicyBundle(target);
      effect = { bundle };
    }
    const after = applySwitchChange(before, change, ctx.principal.actor, this.#now().toISOString());
    await this.#store.save(after);
    this.#state = after;
    await this.#audit.append({
      type: 'admin.switch.changed',
      tenant: tenantForEvent,
      actor: ctx.principal.actor,
      ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
      ...(change.switch === 'policy_bundle' && effect ? { policy_bundle_id: (effect['bundle'] as BundleRef).id } : {}),
      payload: { switch: change.switch, change, before: summary(before), after: summary(after), ...(effect ? { effect } : {}) },
    });
    return effect ? { switches: after, effect } : { switches: after };
  }
}

function summary(s: Switches): Record<string, unknown> {
  const { updated_at: _a, updated_by: _b, ...rest } = s;
  return rest;
}
