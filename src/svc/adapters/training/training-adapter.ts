/**
 * The training adapter: model checkpoints and training runs.
 *
 * - Checkpoints (safetensors) are parsed before anything is stored and then
 *   stored exactly through the object gateway, with chunks forced to end at
 *   the header and at every tensor boundary: CDC restarts at each tensor, so
 *   a tensor that did not change (frozen layers, embeddings) yields the same
 *   chunks in every checkpoint and is stored once. The bytes the ingest did
 *   not store because their chunks existed are the "checkpoint bytes
 *   avoided" (measured, `svc_training_checkpoint_bytes_avoided_total`).
 * - A training run's fingerprint is sha256 over the sha256s of its dataset
 *   manifests (sorted), its config (canonical JSON) and its code digest. A
 *   submission whose fingerprint has a completed run is answered from the
 *   recorded result: a training run avoided (measured) and its GPU seconds
 *   avoided (an estimate: the recorded run's measured seconds, else the
 *   submission's declared estimate).
 */
import { canonicalSha256, sha256Hex } from '../../../core/hashing.ts';
import { newId } from '../../../core/ids.ts';
import { requirePermission } from '../../auth/principal.ts';
import type { TenantGuard } from '../../auth/tenant-guard.ts';
import type { RequestContext } from '../../context.ts';
import { SvcError } from '../../errors.ts';
import type { LedgerAppender } from '../../ledger/appender.ts';
import type { ManifestService } from '../../manifests/manifest-service.ts';
import type { ObjectGateway } from '../../objects/object-gateway.ts';
import type { AdapterRecord, AdapterRecordRepository } from '../../store/repositories/adapter-records.ts';
import { validate } from '../../validation.ts';
import type { AdapterRegistry } from '../adapter-registry.ts';
import { CheckpointPutRequest, RunRefRequest, TrainingRunCompleteRequest, TrainingRunSubmitRequest } from '../adapter-schemas.ts';
import { decodeAdapterBody } from '../decode-body.ts';
import { type TensorFacts, parseSafetensors } from './safetensors.ts';

export const TRAINING = 'training';
const CHECKPOINT = 'checkpoint';
const RUN = 'training_run';

export interface CheckpointFacts {
  bucket: string;
  key: string;
  step: number | null;
  header_bytes: number;
  tensors: (Omit<TensorFacts, 'begin' | 'end'> & { bytes: number })[];
  bytes_deduplicated: number;
}

export interface RunFacts {
  state: 'submitted' | 'completed';
  dataset_manifests: string[];
  code_digest: string;
  config_digest: string;
  estimated_gpu_seconds: number | null;
  gpu_seconds: number | null;
  result: Record<string, unknown> | null;
  completed_at: string | null;
}

export interface TrainingDeps {
  registry: AdapterRegistry;
  records: AdapterRecordRepository;
  gateway: ObjectGateway;
  manifests: ManifestService;
  tenants: TenantGuard;
  ledger: LedgerAppender;
  maxBodyBytes: number;
  metrics: { checkpointBytesAvoided(n: number): void; runAvoided(gpuSeconds: number): void };
}

const runView = (r: AdapterRecord<RunFacts>) => ({
  run_id: r.id,
  run: r.subject,
  attempt: r.seq,
  fingerprint: r.fingerprint,
  state: r.facts.state,
  result: r.facts.result,
  gpu_seconds: r.facts.gpu_seconds,
  created_at: r.created_at,
  completed_at: r.facts.completed_at,
});

export class TrainingAdapter {
  readonly #d: TrainingDeps;
  constructor(deps: TrainingDeps) {
    this.#d = deps;
  }

  async putCheckpoint(ctx: RequestContext, raw: unknown) {
    requirePermission(ctx.principal, 'work_units:write');
    this.#d.registry.require(TRAINING);
    const input = validate(CheckpointPutRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    const bytes = decodeAdapterBody(input.body_base64, this.#d.maxBodyBytes);
    const layout = parseSafetensors(bytes); // before storing: a bad file stores nothing
    const sha256 = sha256Hex(bytes);
    const stored = await this.#d.gateway.storeObject(ctx, {
      tenant,
      bucket: input.bucket,
      key: input.key,
      mode: input.mode,
      contentType: 'application/vnd.safetensors',
      size: bytes.byteLength,
      sha256,
      boundaries: layout.boundaries,
      source: (async function* () {
        yield bytes;
      })(),
    });
    const previous = (await this.#d.records.ofSubject<CheckpointFacts>(tenant, TRAINING, CHECKPOINT, input.run)).at(-1);
    const previousDigests = new Set(previous?.facts.tensors.map((t) => `${t.name}:${t.sha256}`) ?? []);
    const unchanged = layout.tensors.filter((t) => previousDigests.has(`${t.name}:${t.sha256}`));
    const avoided = stored.details.bytes_deduplicated;
    const facts: CheckpointFacts = {
      bucket: input.bucket,
      key: input.key,
      step: input.step ?? null,
      header_bytes: layout.header_bytes,
      tensors: layout.tensors.map((t) => ({ name: t.name, dtype: t.dtype, shape: t.shape, sha256: t.sha256, bytes: t.end - t.begin })),
      bytes_deduplicated: avoided,
    };
    const record = await this.#insertNext<CheckpointFacts>(tenant, CHECKPOINT, input.run, { manifest_id: stored.manifest_id, sha256, bytes: bytes.byteLength, fingerprint: null, facts });
    this.#d.metrics.checkpointBytesAvoided(avoided);
    return {
      run: input.run,
      checkpoint: record.seq,
      step: facts.step,
      manifest_id: stored.manifest_id,
      work_unit_id: stored.work_unit_id,
      bytes_in: bytes.byteLength,
      bytes_stored: stored.details.bytes_stored,
      /** Measured: bytes of this checkpoint whose chunks were already stored. */
      checkpoint_bytes_avoided: avoided,
      tensors: layout.tensors.length,
      tensors_unchanged_since_previous: previous ? unchanged.length : null,
      tensor_bytes_unchanged_since_previous: previous ? unchanged.reduce((n, t) => n + t.end - t.begin, 0) : null,
    };
  }

  async checkpoints(ctx: RequestContext, raw: unknown) {
    requirePermission(ctx.principal, 'work_units:read');
    this.#d.registry.require(TRAINING);
    const input = validate(RunRefRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    const rows = await this.#d.records.ofSubject<CheckpointFacts>(tenant, TRAINING, CHECKPOINT, input.run);
    if (rows.length === 0) throw new SvcError('not_found', 'no checkpoints for this run');
    return {
      run: input.run,
      checkpoints: rows.map((r) => ({ checkpoint: r.seq, step: r.facts.step, key: r.facts.key, manifest_id: r.manifest_id, bytes: r.bytes, tensors: r.facts.tensors.length, checkpoint_bytes_avoided: r.facts.bytes_deduplicated, created_at: r.created_at })),
      checkpoint_bytes_avoided: rows.reduce((n, r) => n + r.facts.bytes_deduplicated, 0),
    };
  }

  /** Answers an identical run from its recorded result, or registers the run to be trained. */
  async submitRun(ctx: RequestContext, raw: unknown) {
    requirePermission(ctx.principal, 'work_units:write');
    this.#d.registry.require(TRAINING);
    const input = validate(TrainingRunSubmitRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    if (Buffer.byteLength(JSON.stringify(input.config)) > 64 * 1024) throw new SvcError('payload_too_large', 'config is larger than 64 KiB');
    const datasetDigests: string[] = [];
    for (const id of input.dataset_manifests) {
      const m = await this.#d.manifests.get(ctx, id); // tenant-checked: another tenant's manifest is not found
      if (m.tenant !== tenant) throw new SvcError('manifest_not_found', `manifest ${id} not found`);
      datasetDigests.push(m.sha256);
    }
    const configDigest = canonicalSha256(input.config);
    const fingerprint = canonicalSha256({ datasets: [...datasetDigests].sort(), config: configDigest, code: input.code_digest });
    const same = await this.#d.records.byFingerprint<RunFacts>(tenant, TRAINING, RUN, fingerprint);
    const completed = same.find((r) => r.facts.state === 'completed');
    if (completed) {
      const recorded = completed.facts.gpu_seconds;
      const gpuSeconds = recorded ?? input.estimated_gpu_seconds ?? 0;
      const basis = recorded !== null ? 'recorded_run_gpu_seconds' : input.estimated_gpu_seconds !== undefined ? 'declared_estimate' : 'unknown';
      this.#d.metrics.runAvoided(gpuSeconds);
      await this.#d.ledger.append({
        type: 'training.run_avoided',
        tenant,
        actor: ctx.principal.actor,
        trace_id: ctx.traceId,
        payload: { fingerprint, answered_from: completed.id, run: input.run, gpu_seconds_avoided_estimate: gpuSeconds, basis },
      });
      return { status: 'answered_from_record' as const, fingerprint, run: runView(completed), training_runs_avoided: 1, gpu_seconds_avoided: { value: gpuSeconds, estimate: true, basis } };
    }
    const pending = same.find((r) => r.facts.state === 'submitted');
    if (pending) return { status: 'identical_run_in_progress' as const, fingerprint, run: runView(pending), training_runs_avoided: 0 };
    const facts: RunFacts = {
      state: 'submitted',
      dataset_manifests: input.dataset_manifests,
      code_digest: input.code_digest,
      config_digest: configDigest,
      estimated_gpu_seconds: input.estimated_gpu_seconds ?? null,
      gpu_seconds: null,
      result: null,
      completed_at: null,
    };
    const record = await this.#insertNext<RunFacts>(tenant, RUN, input.run, { manifest_id: null, sha256: null, bytes: 0, fingerprint, facts });
    return { status: 'train' as const, fingerprint, run: runView(record), training_runs_avoided: 0 };
  }

  /** Records what a submitted run produced, so identical resubmissions are answered from it. */
  async completeRun(ctx: RequestContext, raw: unknown) {
    requirePermission(ctx.principal, 'work_units:write');
    this.#d.registry.require(TRAINING);
    const input = validate(TrainingRunCompleteRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    if (Buffer.byteLength(JSON.stringify(input.result)) > 256 * 1024) throw new SvcError('payload_too_large', 'result is larger than 256 KiB');
    const r = await this.#d.records.get<RunFacts>(input.run_id);
    if (!r || r.tenant !== tenant || r.adapter !== TRAINING || r.kind !== RUN) throw new SvcError('not_found', 'no such training run');
    if (r.facts.state === 'completed') throw new SvcError('conflict', 'the run is already completed');
    const facts: RunFacts = { ...r.facts, state: 'completed', result: input.result, gpu_seconds: input.gpu_seconds ?? null, completed_at: new Date().toISOString() };
    await this.#d.records.setFacts(r.id, facts);
    return { run: runView({ ...r, facts }) };
  }

  async #insertNext<F>(tenant: string, kind: string, subject: string, rest: Pick<AdapterRecord<F>, 'manifest_id' | 'sha256' | 'bytes' | 'fingerprint' | 'facts'>): Promise<AdapterRecord<F>> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const last = (await this.#d.records.ofSubject(tenant, TRAINING, kind, subject)).at(-1);
      const record: AdapterRecord<F> = { id: newId('adr'), tenant, adapter: TRAINING, kind, subject, seq: (last?.seq ?? 0) + 1, created_at: new Date().toISOString(), last_read_at: null, ...rest };
      if (await this.#d.records.insert(record)) return record;
    }
    throw new SvcError('conflict', 'the run is being written concurrently; retry');
  }
}
