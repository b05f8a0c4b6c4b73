/**
 * One engine worker thread of the attr service (engine-worker-pool.ts).
 *
 * At start it builds its own engine — corpus index and all — once, from the
 * corpus the service loaded and validated (cloned in, so every worker indexes
 * exactly the bytes the service hashed), loads the footer signing key itself
 * (key objects stay in the thread that uses them), attributes the pool's
 * probe and reports the probe's bytes digest: the pool compares it with the
 * in-process engine's before it sends a single request. Then it answers each
 * job with two messages: the summary the audit record needs as soon as the
 * engine has decided (the main thread starts the audit commit with it), then
 * the response serialised to UTF-8 JSON here, its buffer transferred (not
 * copied).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createAttributionEngine, type AttributeInput, type AttributionEngine, type Corpus } from '../engine/index.ts';
import { loadFooterSigner } from '../footer/load-footer-signer.ts';
import { bodyDigest, encodeAttribution, summarizeAttribution, toTransportedError, type AttributionSummary, type TransportedError } from './attribution-runner.ts';

export interface EngineWorkerData {
  corpus: Corpus;
  footerSigning: { keyId: string; privateKeyPath: string } | undefined;
  probe: AttributeInput;
}

export interface EngineJob {
  id: number;
  input: AttributeInput;
}

export type EngineWorkerMessage =
  | { type: 'ready'; probeSha256: string }
  | { type: 'failed'; problem: string }
  | { type: 'summary'; id: number; summary: AttributionSummary; engineMs: number }
  | { type: 'body'; id: number; body: ArrayBuffer }
  | { type: 'error'; id: number; error: TransportedError };

const port = parentPort;
if (port === null) throw new Error('engine-worker.ts runs as a worker thread');
const data = workerData as EngineWorkerData;

async function start(): Promise<AttributionEngine> {
  const signing = data.footerSigning === undefined ? undefined : await loadFooterSigner(data.footerSigning);
  if (signing !== undefined && !signing.ok) throw new Error(signing.problem);
  return createAttributionEngine(data.corpus, signing === undefined ? {} : { footerSigner: signing.signer });
}

let engine: AttributionEngine;
try {
  engine = await start();
  port.postMessage({ type: 'ready', probeSha256: bodyDigest(encodeAttribution(engine.attribute(data.probe))) } satisfies EngineWorkerMessage);
} catch (err) {
  port.postMessage({ type: 'failed', problem: (err as Error).message } satisfies EngineWorkerMessage);
  process.exit(1);
}

port.on('message', (job: EngineJob) => {
  try {
    const started = performance.now();
    const response = engine.attribute(job.input);
    const engineMs = performance.now() - started;
    port.postMessage({ type: 'summary', id: job.id, summary: summarizeAttribution(response), engineMs } satisfies EngineWorkerMessage);
    const body = encodeAttribution(response).buffer as ArrayBuffer;
    port.postMessage({ type: 'body', id: job.id, body } satisfies EngineWorkerMessage, [body]);
  } catch (err) {
    // Before the summary: the request fails. After it: only the body is lost, and the pool fails just that.
    port.postMessage({ type: 'error', id: job.id, error: toTransportedError(err) } satisfies EngineWorkerMessage);
  }
});
