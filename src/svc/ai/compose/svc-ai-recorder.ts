/**
 * The `AiRecorder` of the composed service: an AI request becomes a work
 * unit (kind `prompt_request`, `completion_request` or `embedding_request`,
 * no prompt text stored — only its size and digest are known to the
 * gateway, and not even those are kept), a persisted plan with
 * `plan.created`, and at the end a compute manifest with `manifest.written`,
 * whose payload also carries the request's summary (kind, route, cache,
 * verifier, tokens: what a separate `ai.request.completed` event held
 * before docs/decisions/137 — one row fewer per request).
 *
 * `begin` only holds the start record; `complete` hands work unit, plan,
 * manifest and the two ledger events to the ledger's group commit as ONE
 * unit: they commit in one transaction, shared with the other requests in
 * flight, and `complete` resolves only after that commit — so the gateway
 * acknowledges nothing that is not durable (docs/decisions/067).
 */
import { newId } from '../../../core/ids.ts';
import type { LedgerAppender } from '../../ledger/appender.ts';
import type { Plan } from '../../plans/plan.ts';
import type { AiRecordJournal } from '../../store/repositories/ai-record-journal.ts';
import { AiManifestRepository } from '../../store/repositories/ai-manifests.ts';
import { PlanRepository } from '../../store/repositories/plans.ts';
import { WorkUnitRepository } from '../../store/repositories/work-units.ts';
import type { WorkUnitRecord } from '../../work-units/work-unit.ts';
import { type AiComputeManifest, type AiRecorder, type AiRequestContext, type AiWorkUnitStart, STORED_WORK_UNIT_KIND } from '../gateway/ports.ts';

const ACTION_CLASS: Record<string, 'exact' | 'semantic' | 'operation'> = {
  exact_cache_lookup: 'exact',
  context_compile: 'semantic',
  semantic_cache_lookup: 'semantic',
  model_route: 'operation',
  verify: 'operation',
  fallback_route: 'operation',
};

/** Batches of at most this many record units journal their AI records (docs/decisions/141). */
const JOURNAL_AT_MOST = 4;

export class SvcAiRecorder implements AiRecorder {
  readonly #ledger: LedgerAppender;
  readonly #onManifestWritten: (seconds: number) => void;
  readonly #records: AiRecordJournal | undefined;

  /** `records`: where the three rows go (journalled on SQLite, docs/decisions/141); without it they are written directly. */
  constructor(ledger: LedgerAppender, onManifestWritten: (seconds: number) => void = () => {}, records?: AiRecordJournal) {
    this.#ledger = ledger;
    this.#onManifestWritten = onManifestWritten;
    this.#records = records;
    // Requests planned and not yet finished will hand their records to the group commit soon: a batch waits a few
    // passes of the event loop for them (LedgerAppender.expectUnitsFrom, docs/decisions/175).
    ledger.expectUnitsFrom(() => this.#started.size);
  }

  readonly #started = new Map<string, { start: AiWorkUnitStart; actor: string }>();

  async begin(ctx: AiRequestContext, s: AiWorkUnitStart): Promise<void> {
    this.#started.set(s.work_unit_id, { start: s, actor: ctx.principal.actor });
  }

  async complete(ctx: AiRequestContext, m: AiComputeManifest): Promise<void> {
    const t0 = performance.now();
    const held = this.#started.get(m.work_unit_id);
    this.#started.delete(m.work_unit_id);
    if (!held) throw new Error(`no started work unit ${m.work_unit_id}`);
    const { start: s, actor } = held;
    const now = new Date().toISOString();
    const wu: WorkUnitRecord = {
      id: s.work_unit_id,
      tenant: s.tenant,
      kind: STORED_WORK_UNIT_KIND[s.kind],
      logical_ref: s.logical_ref,
      requested_contract: s.contract,
      state: m.status === 'completed' ? 'executed' : 'failed',
      metadata: { surface: 'ai_gateway', ...(s.namespace ? { namespace: s.namespace } : {}) },
      payload: { kind: 'none' },
      payload_size: 0,
      payload_sha256: null,
      created_by: actor,
      trace_id: s.trace_id,
      last_plan_id: s.plan.plan_id,
      manifest_id: m.manifest_id,
      created_at: now,
      updated_at: now,
    };
    const plan: Plan = {
      plan_id: s.plan.plan_id,
      work_unit_id: s.work_unit_id,
      tenant: s.tenant,
      kind: wu.kind,
      contract: s.contract,
      mode: s.mode,
      actions: s.plan.actions.filter((a) => a.status === 'planned').map((a) => ({ type: a.type, required: a.required, risk: a.risk, class: ACTION_CLASS[a.type] ?? 'operation' })),
      denied_actions: s.plan.denied_actions,
      obligations: [],
      risk: s.plan.risk,
      expected: { stored_bytes_reduction: 0, basis: 'none', sample_bytes: 0 },
      ...(s.plan.rollout ? { rollout: s.plan.rollout } : {}),
      policy_bundle_id: s.policy_bundle.id,
      policy_bundle_version: s.policy_bundle.version,
      policy_bundle_hash: s.policy_bundle.hash,
      trace_id: s.trace_id,
      created_at: now,
    };
    let journalled = false;
    // The plan is stored once: its row points at the `plan.created` event below, whose payload carries it (docs/decisions/172).
    const planEventId = newId('evt');
    const common = { tenant: m.tenant, actor: ctx.principal.actor, work_unit_id: m.work_unit_id, policy_bundle_id: m.policy_bundle_id, trace_id: m.trace_id };
    await this.#ledger.commit({
      write: async (tx, unitsInBatch) => {
        // A stored unit being executed exists already: it moves to executed/failed and points at its plan and manifest.
        if (s.stored) {
          await new WorkUnitRepository(tx).update(wu.id, { state: wu.state, last_plan_id: s.plan.plan_id, manifest_id: m.manifest_id });
          await new PlanRepository(tx).insert(plan, actor, planEventId);
          await new AiManifestRepository(tx).insert(m);
        } else if (this.#records && unitsInBatch <= JOURNAL_AT_MOST) {
          // A request that commits (nearly) alone: one journal row on SQLite, moved into work_units / plans /
          // ai_manifests in batches (docs/decisions/141); the three rows on PostgreSQL. In a larger batch the
          // tables' pages are shared by its requests already, and the rows go straight in.
          await this.#records.write(tx, { work_unit: wu, plan, plan_created_by: actor, plan_event_id: planEventId, manifest: m });
          journalled = true;
        } else {
          await new WorkUnitRepository(tx).insert(wu);
          await new PlanRepository(tx).insert(plan, actor, planEventId);
          await new AiManifestRepository(tx).insert(m);
        }
      },
      events: [
        { ...common, id: planEventId, type: 'plan.created', payload: { work_unit_id: s.work_unit_id, policy_bundle_id: s.policy_bundle.id, trace_id: s.trace_id, plan: { ...plan, ai_actions: s.plan.actions, route: s.plan.route } } },
        {
          ...common,
          manifest_id: m.manifest_id,
          type: 'manifest.written',
          payload: { manifest_id: m.manifest_id, kind: 'compute', status: m.status, result: m.result, ai: { kind: m.kind, route: m.route, cache: m.cache, verifier: m.verifier.name, tokens: m.tokens } },
        },
      ],
    });
    if (journalled) this.#records!.committed();
    this.#onManifestWritten((performance.now() - t0) / 1000);
  }
}
