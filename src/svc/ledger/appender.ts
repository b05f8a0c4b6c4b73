/**
 * Group commit for the ledger. Concurrent `append` calls are queued and
 * written in batches, one transaction per batch, so 10,000 concurrent appends
 * cost a handful of transactions instead of 10,000. A caller's promise
 * resolves only after its batch has committed: an acknowledged event is durable.
 *
 * `commit` extends the same batches to whole records: a unit's rows (work
 * unit, plan, manifest, cache entry, …) are written in the batch's
 * transaction, before the ledger events, so a request's records and its
 * events commit together and concurrent requests share one commit.
 *
 * A batch waits a little for units on their way (`expectUnitsFrom`): while
 * writers report units begun but not yet handed over, and each pass of the
 * event loop brings more of them, the batch yields again (at most
 * GATHER_ROUNDS passes). A commit costs ~1 ms of CPU whatever its size (the
 * fsync, the tail page of every b-tree it touches), so at 64 AI requests in
 * flight twice the units per commit save ~30 µs of CPU per request
 * (docs/decisions/175). With nothing on its way — one request at a time —
 * a batch commits after one yield, as before.
 */
import { EventEmitter } from 'node:events';
import type { Db } from '../store/db.ts';
import type { LedgerRepository } from '../store/repositories/ledger.ts';
import { currentOperation } from '../operations/operation-scope.ts';
import { committedEvent, type LedgerEvent, type LedgerEventInput } from './event.ts';
import { inSpan, inTracedScope } from '../observability/tracing.ts';

/**
 * Rows written inside the batch transaction; `tx` is only valid until the
 * promise settles. `unitsInBatch`: how many record units share this
 * transaction (a writer may store its rows differently when it commits
 * alone, docs/decisions/141).
 */
export type RecordWriter<T> = (tx: Db, unitsInBatch: number) => Promise<T>;

/** A record unit: rows and the ledger events that describe them, committed atomically. */
export interface CommitUnit<T> {
  write?: RecordWriter<T>;
  events: readonly LedgerEventInput[];
}

/** Resolves after the event loop's next pass (I/O callbacks that were ready have run). */
function nextPass(): Promise<void> {
  return new Promise<void>((r) => setImmediate(r));
}

interface Pending {
  inputs: readonly LedgerEventInput[];
  write: RecordWriter<unknown> | undefined;
  resolve: (r: { result: unknown; events: LedgerEvent[] }) => void;
  reject: (err: unknown) => void;
}

export const MAX_BATCH = 2000;
/** At most this many extra passes of the event loop while units are on their way (see the header). */
export const GATHER_ROUNDS = 4;

export class LedgerAppender {
  readonly #repo: LedgerRepository;
  readonly #queue: Pending[] = [];
  #queuedEvents = 0;
  #flushing: Promise<void> | undefined;
  readonly #expected: Array<() => number> = [];
  /** Emits 'appended' with the committed events (for SSE streams and metrics). */
  readonly events = new EventEmitter();

  constructor(repo: LedgerRepository) {
    this.#repo = repo;
    this.events.setMaxListeners(0);
  }

  /**
   * `count` reports how many record units a writer has begun and will hand to
   * `commit` soon (e.g. AI requests planned and not yet finished); a batch
   * waits a few passes of the event loop for them (see the header). It must
   * be cheap: it is read once per pass while a batch gathers.
   */
  expectUnitsFrom(count: () => number): void {
    this.#expected.push(count);
  }

  #unitsOnTheirWay(): number {
    let n = 0;
    for (const count of this.#expected) n += count();
    return n;
  }

  append(input: LedgerEventInput): Promise<LedgerEvent> {
    return this.#enqueue([input], undefined).then((r) => r.events[0]!);
  }

  /**
   * Writes `unit.write`'s rows and appends `unit.events` in one transaction,
   * batched with whatever else is queued. Resolves after the commit. If a
   * batch with record writers fails, its units are retried one by one, so a
   * unit that cannot be written fails alone.
   */
  commit<T>(unit: CommitUnit<T>): Promise<{ result: T | undefined; events: LedgerEvent[] }> {
    return this.#enqueue(unit.events, unit.write as RecordWriter<unknown> | undefined) as Promise<{ result: T | undefined; events: LedgerEvent[] }>;
  }

  #enqueue(inputs: readonly LedgerEventInput[], write: RecordWriter<unknown> | undefined): Promise<{ result: unknown; events: LedgerEvent[] }> {
    // svc.ledger.append spans the wait for the group commit: event types and ids only, never payloads.
    // No span without a traced request: the attributes are not even computed (one commit unit per AI request).
    if (!inTracedScope()) return this.#enqueueNow(inputs, write);
    const first = inputs[0];
    const attributes = { action: [...new Set(inputs.map((i) => i.type))].join(','), work_unit_id: first?.work_unit_id, manifest_id: first?.manifest_id, policy_bundle_id: first?.policy_bundle_id };
    return inSpan('svc.ledger.append', attributes, () => this.#enqueueNow(inputs, write));
  }

  #enqueueNow(inputs: readonly LedgerEventInput[], write: RecordWriter<unknown> | undefined): Promise<{ result: unknown; events: LedgerEvent[] }> {
    // Events written while a mutating call runs as an operation work unit name it (src/svc/operations).
    const operation = currentOperation();
    if (operation !== undefined) {
      inputs = inputs.map((i) => {
        if (i.work_unit_id != null) return i;
        operation.stamped = true;
        return { ...i, work_unit_id: operation.workUnitId };
      });
    }
    return new Promise((resolve, reject) => {
      this.#queue.push({ inputs, write, resolve, reject });
      this.#queuedEvents += inputs.length;
      this.#flushing ??= this.#drain();
    });
  }

  /** Appends several events in one batch, in order. */
  appendMany(inputs: readonly LedgerEventInput[]): Promise<LedgerEvent[]> {
    return Promise.all(inputs.map((i) => this.append(i)));
  }

  async #drain(): Promise<void> {
    // Yield once so that appends issued in the same tick join the first batch.
    await nextPass();
    try {
      while (this.#queue.length > 0) {
        await this.#gather();
        const batch = this.#takeBatch();
        try {
          await this.#write(batch);
        } catch (err) {
          if (batch.length > 1 && batch.some((p) => p.write)) {
            // Isolate the unit that cannot be written; the others still commit.
            for (const p of batch) await this.#write([p]).catch((e: unknown) => this.#fail([p], e));
          } else {
            this.#fail(batch, err);
          }
        }
      }
    } finally {
      this.#flushing = undefined;
    }
  }

  /**
   * More passes of the event loop while units are on their way and the last pass brought some: stops at
   * GATHER_ROUNDS passes, at a full batch, when nothing is on its way, or after a pass that brought nothing
   * (e.g. the requests in flight all wait on a slow upstream).
   */
  async #gather(): Promise<void> {
    for (let round = 0; round < GATHER_ROUNDS && this.#queuedEvents < MAX_BATCH; round++) {
      if (this.#unitsOnTheirWay() === 0) return;
      const queued = this.#queue.length;
      await nextPass();
      if (this.#queue.length === queued) return;
    }
  }

  /** Up to MAX_BATCH events (a unit is never split; a single larger unit goes alone). */
  #takeBatch(): Pending[] {
    let events = 0;
    let n = 0;
    while (n < this.#queue.length) {
      const size = this.#queue[n]!.inputs.length;
      if (n > 0 && events + size > MAX_BATCH) break;
      events += size;
      n++;
    }
    this.#queuedEvents -= events;
    return this.#queue.splice(0, n);
  }

  async #write(batch: Pending[]): Promise<void> {
    const writers = batch.filter((p) => p.write);
    const results = new Map<Pending, unknown>();
    const before =
      writers.length === 0
        ? undefined
        : async (tx: Db) => {
            for (const p of writers) results.set(p, await p.write!(tx, writers.length));
          };
    const rows = await this.#repo.appendBatch(
      batch.flatMap((p) => p.inputs),
      before,
    );
    const events = rows.map(committedEvent);
    let at = 0;
    for (const p of batch) {
      p.resolve({ result: results.get(p), events: events.slice(at, at + p.inputs.length) });
      at += p.inputs.length;
    }
    if (events.length > 0) this.events.emit('appended', events);
  }

  #fail(batch: Pending[], err: unknown): void {
    for (const p of batch) p.reject(err);
    this.events.emit('append_failed', err);
  }

  /** Resolves when everything queued so far is committed (shutdown). */
  async drained(): Promise<void> {
    while (this.#flushing) await this.#flushing;
  }
}
