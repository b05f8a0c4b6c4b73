/**
 * The engine in a pool of worker threads (docs/decisions/140-attr-engine-worker-pool.md).
 *
 * The engine is synchronous CPU work (~7 ms for a 300-word answer against
 * 1,200 sources on the reference machine); in the service's own thread it
 * serialised every request behind every other and left all but one core
 * idle. Here each worker owns a full engine, built once at start from the
 * corpus the service validated, and takes whole requests: attribution and the
 * JSON serialisation of the response. The main thread keeps HTTP, auth,
 * validation and the audit log, whose one writer keeps the hash chain and
 * group-commits the entries of requests that finish together. A worker sends
 * the summary the audit entry needs before it serialises the response, so the
 * entry's commit (an fdatasync) and the serialisation overlap.
 *
 * Scheduling: a FIFO queue in the main thread; a job goes to the worker with
 * the fewest jobs in hand, at most {@link JOBS_PER_WORKER} each, so a worker
 * finds its next job already queued on its port when it finishes one instead
 * of idling for a round trip through a busy main thread.
 *
 * Start-up is all or nothing: every worker must build its engine and
 * attribute the probe to the same bytes as the in-process engine (same
 * corpus, same signing key, same code), or the pool does not start and the
 * service stays not-ready (`engine_load`). A worker that dies later fails its
 * jobs with `internal` (each is audited as refused) and is replaced; a
 * replacement that cannot start marks the pool broken, which turns
 * readiness off instead of queueing requests forever.
 */
import { Worker } from 'node:worker_threads';
import type { AttributeInput, Corpus } from '../engine/index.ts';
import { AttrError } from '../errors.ts';
import { fromTransportedError, type AttributionResult, type AttributionRunner } from './attribution-runner.ts';
import type { EngineJob, EngineWorkerData, EngineWorkerMessage } from './engine-worker.ts';

/** Jobs a worker holds at once: the one it runs and the next one. */
export const JOBS_PER_WORKER = 2;

export interface EngineWorkerPoolOptions {
  size: number;
  corpus: Corpus;
  footerSigning: { keyId: string; privateKeyPath: string } | undefined;
  /** Attributed by every worker at start; its response bytes must hash to `probeSha256`. */
  probe: AttributeInput;
  probeSha256: string;
  /** How long a worker may take to build its engine and answer the probe. */
  startTimeoutMs?: number;
  /** The worker script; tests substitute one that wraps engine-worker.ts. */
  workerUrl?: URL;
}

interface Job {
  id: number;
  input: AttributeInput;
  resolve: (result: AttributionResult) => void;
  reject: (err: Error) => void;
  /** Set once the summary arrived: the body still to come. */
  body?: { resolve: (body: Buffer) => void; reject: (err: Error) => void };
}

interface Slot {
  worker: Worker;
  jobs: Map<number, Job>;
}

const DEFAULT_START_TIMEOUT_MS = 120_000;

export class EngineWorkerPool implements AttributionRunner {
  readonly workers: number;
  readonly #options: EngineWorkerPoolOptions;
  readonly #slots = new Set<Slot>();
  readonly #queue: Job[] = [];
  #nextId = 0;
  #problem: string | undefined;
  #closed = false;

  private constructor(options: EngineWorkerPoolOptions) {
    this.#options = options;
    this.workers = options.size;
  }

  /** Starts `size` workers; rejects (after stopping the ones that started) unless every one passes the probe. */
  static async start(options: EngineWorkerPoolOptions): Promise<EngineWorkerPool> {
    if (!Number.isInteger(options.size) || options.size < 1) throw new TypeError(`engine worker pool size must be a positive integer, got ${options.size}`);
    const pool = new EngineWorkerPool(options);
    const started = await Promise.allSettled(Array.from({ length: options.size }, () => pool.#spawn()));
    const failure = started.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failure !== undefined) {
      await pool.close();
      throw failure.reason;
    }
    return pool;
  }

  attribute(input: AttributeInput): Promise<AttributionResult> {
    if (this.#problem !== undefined || this.#closed) return Promise.reject(new AttrError('not_ready', 'the service is not ready; see GET /readyz'));
    return new Promise<AttributionResult>((resolve, reject) => {
      this.#queue.push({ id: ++this.#nextId, input, resolve, reject });
      this.#dispatch();
    });
  }

  problem(): string | undefined {
    return this.#problem;
  }

  /** Jobs waiting for a worker (tests, diagnostics). */
  get queued(): number {
    return this.#queue.length;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#problem ??= 'engine worker pool closed';
    this.#failQueued(new AttrError('not_ready', 'the service is shutting down'));
    const slots = [...this.#slots];
    this.#slots.clear();
    await Promise.all(slots.map(async (slot) => {
      this.#failJobs(slot, new AttrError('not_ready', 'the service is shutting down'));
      await slot.worker.terminate();
    }));
  }

  #dispatch(): void {
    while (this.#queue.length > 0) {
      let target: Slot | undefined;
      for (const slot of this.#slots) if (slot.jobs.size < JOBS_PER_WORKER && (target === undefined || slot.jobs.size < target.jobs.size)) target = slot;
      if (target === undefined) return;
      const job = this.#queue.shift()!;
      target.jobs.set(job.id, job);
      // Referenced only while it holds work: an idle pool never keeps a process alive.
      if (target.jobs.size === 1) target.worker.ref();
      target.worker.postMessage({ id: job.id, input: job.input } satisfies EngineJob);
    }
  }

  /** Starts one worker; resolves once it has answered the probe with the expected bytes. */
  #spawn(): Promise<void> {
    const { corpus, footerSigning, probe, probeSha256 } = this.#options;
    const workerData: EngineWorkerData = { corpus, footerSigning, probe };
    const worker = new Worker(this.#options.workerUrl ?? new URL('./engine-worker.ts', import.meta.url), { workerData });
    const slot: Slot = { worker, jobs: new Map() };
    return new Promise<void>((resolve, reject) => {
      let ready = false;
      const timer = setTimeout(() => {
        fail(new Error(`engine worker did not start within ${this.#options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS} ms`));
        void worker.terminate();
      }, this.#options.startTimeoutMs ?? DEFAULT_START_TIMEOUT_MS);
      const fail = (err: Error): void => {
        if (ready) return;
        ready = true;
        clearTimeout(timer);
        reject(err);
      };
      worker.on('message', (msg: EngineWorkerMessage) => {
        switch (msg.type) {
          case 'ready':
            if (msg.probeSha256 !== probeSha256) {
              fail(new Error('engine worker answered the probe differently from the in-process engine'));
              void worker.terminate();
              return;
            }
            ready = true;
            clearTimeout(timer);
            worker.unref();
            if (this.#closed) {
              void worker.terminate();
            } else {
              this.#slots.add(slot);
              this.#dispatch();
            }
            resolve();
            return;
          case 'failed':
            fail(new Error(`engine worker failed to start: ${msg.problem}`));
            return;
          case 'summary': {
            const job = slot.jobs.get(msg.id);
            if (job === undefined) return;
            const body = new Promise<Buffer>((resolve, reject) => {
              job.body = { resolve, reject };
            });
            // Handled here too: a body lost after its summary must not surface as an unhandled rejection.
            body.catch(() => undefined);
            job.resolve({ summary: msg.summary, engineMs: msg.engineMs, body });
            return;
          }
          case 'body':
          case 'error': {
            const job = slot.jobs.get(msg.id);
            if (job === undefined) return;
            slot.jobs.delete(msg.id);
            if (slot.jobs.size === 0) worker.unref();
            if (msg.type === 'body') job.body?.resolve(Buffer.from(msg.body));
            else settleFailed(job, fromTransportedError(msg.error));
            this.#dispatch();
            return;
          }
        }
      });
      worker.on('error', (err) => {
        fail(err);
        this.#lost(slot, err);
      });
      worker.on('exit', (code) => {
        fail(new Error(`engine worker exited with code ${code} during start-up`));
        this.#lost(slot, new Error(`engine worker exited with code ${code}`));
      });
    });
  }

  /** A running worker died: its jobs fail (each is audited as refused), a replacement starts. */
  #lost(slot: Slot, cause: Error): void {
    if (!this.#slots.delete(slot)) return;
    this.#failJobs(slot, new AttrError('internal', 'internal error', { cause }));
    if (this.#closed) return;
    this.#spawn().catch((err: unknown) => {
      this.#problem = `engine worker could not be replaced: ${(err as Error).message}`;
      this.#failQueued(new AttrError('not_ready', 'the service is not ready; see GET /readyz'));
    });
  }

  #failJobs(slot: Slot, err: Error): void {
    const jobs = [...slot.jobs.values()];
    slot.jobs.clear();
    for (const job of jobs) settleFailed(job, err);
  }

  #failQueued(err: Error): void {
    for (const job of this.#queue.splice(0)) job.reject(err);
  }
}

/** A job that failed: before its summary the attribution fails; after it, only the body does. */
function settleFailed(job: Job, err: Error): void {
  if (job.body === undefined) job.reject(err);
  else job.body.reject(err);
}
