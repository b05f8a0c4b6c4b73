/**
 * The pool of sandbox worker threads plugin calls run in (decision 149).
 * Each worker runs one call at a time inside QuickJS/WASM
 * (plugin-sandbox-worker.ts). The host enforces what the VM cannot promise by
 * itself: a call that has not answered a second after its deadline, or a
 * worker that dies, fails that call and the worker is replaced — svc keeps
 * serving. Workers start with an empty environment (`env: {}`), so not even a
 * bug in the interpreter could read svc's secrets from `process.env`.
 */
import { Worker } from 'node:worker_threads';
import type { SandboxFailureReason, SandboxOp, SandboxReply, SandboxRequest } from './sandbox-protocol.ts';

export type SandboxResult = { ok: true; kind: 'bytes'; bytes: Uint8Array } | { ok: true; kind: 'text'; text: string } | { ok: true; kind: 'json'; json: string } | { ok: false; reason: SandboxFailureReason; message: string };

export interface SandboxCall {
  code: string;
  filename: string;
  timeoutMs: number;
  memoryBytes: number;
  call: SandboxOp;
}

/** Grace the host gives the in-VM deadline before it terminates the thread. */
const WATCHDOG_GRACE_MS = 1000;

interface Slot {
  worker: Worker;
  busy: { callId: number; resolve: (r: SandboxResult) => void; timer: NodeJS.Timeout } | null;
}

export class PluginSandbox {
  readonly #size: number;
  readonly #slots: Slot[] = [];
  readonly #queue: { req: SandboxCall; resolve: (r: SandboxResult) => void }[] = [];
  #nextId = 1;
  #closed = false;

  constructor(options: { workers: number }) {
    this.#size = Math.max(1, options.workers);
  }

  run(req: SandboxCall): Promise<SandboxResult> {
    if (this.#closed) return Promise.resolve({ ok: false, reason: 'crash', message: 'the plugin sandbox is shut down' });
    return new Promise((resolve) => {
      this.#queue.push({ req, resolve });
      this.#pump();
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const q of this.#queue.splice(0)) q.resolve({ ok: false, reason: 'crash', message: 'the plugin sandbox is shut down' });
    await Promise.all(this.#slots.splice(0).map((s) => this.#finish(s, { ok: false, reason: 'crash', message: 'the plugin sandbox is shut down' }, true)));
  }

  #spawn(): Slot {
    const worker = new Worker(new URL('./plugin-sandbox-worker.ts', import.meta.url), {
      env: {},
      // The VM's own memory limit bounds plugin allocations; this bounds the thread's JS heap around it.
      resourceLimits: { maxOldGenerationSizeMb: 64, maxYoungGenerationSizeMb: 16, stackSizeMb: 4 },
    });
    worker.unref();
    const slot: Slot = { worker, busy: null };
    worker.on('message', (reply: SandboxReply) => {
      // A reply from a call the watchdog already failed is ignored.
      if (!slot.busy || slot.busy.callId !== reply.callId) return;
      const { callId: _id, ...rest } = reply;
      void this.#finish(slot, rest as SandboxResult, false);
    });
    const died = (message: string) => {
      const i = this.#slots.indexOf(slot);
      if (i >= 0) this.#slots.splice(i, 1);
      if (slot.busy) {
        const { resolve, timer } = slot.busy;
        clearTimeout(timer);
        slot.busy = null;
        resolve({ ok: false, reason: 'crash', message });
      }
      this.#pump();
    };
    worker.on('error', (err) => died(`sandbox worker failed: ${err.message}`));
    worker.on('exit', (code) => died(`sandbox worker exited (${code})`));
    this.#slots.push(slot);
    return slot;
  }

  async #finish(slot: Slot, result: SandboxResult, terminate: boolean): Promise<void> {
    const busy = slot.busy;
    slot.busy = null;
    if (busy) {
      clearTimeout(busy.timer);
      busy.resolve(result);
    }
    if (terminate) {
      const i = this.#slots.indexOf(slot);
      if (i >= 0) this.#slots.splice(i, 1);
      slot.worker.removeAllListeners('exit');
      await slot.worker.terminate().catch(() => undefined);
    }
    this.#pump();
  }

  #pump(): void {
    while (!this.#closed && this.#queue.length > 0) {
      let slot = this.#slots.find((s) => s.busy === null);
      if (!slot && this.#slots.length < this.#size) slot = this.#spawn();
      if (!slot) return;
      const next = this.#queue.shift() as { req: SandboxCall; resolve: (r: SandboxResult) => void };
      const callId = this.#nextId++;
      const s = slot;
      const timer = setTimeout(() => {
        void this.#finish(s, { ok: false, reason: 'timeout', message: `the plugin did not finish within ${next.req.timeoutMs} ms` }, true);
      }, next.req.timeoutMs + WATCHDOG_GRACE_MS);
      slot.busy = { callId, resolve: next.resolve, timer };
      const message: SandboxRequest = { callId, ...next.req };
      slot.worker.postMessage(message);
    }
  }
}
