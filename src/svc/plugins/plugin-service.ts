/**
 * Signed plugins: install, enable, disable, and the calls the rest of svc
 * makes into them (docs/plugins.md; decisions 148–150).
 *
 * Trust is re-established every time: the signature and file digests are
 * checked at install, at enable and at every load into this process (a load
 * is the first call after start or after the bundle changed). A failure at
 * any stage is audited (`plugin.signature_failed`), counted
 * (`svc_plugin_signature_failures_total`, which fires the critical alert
 * "plugin signature failure"), and the plugin is not run: requests that need
 * it get `plugin_unavailable` (retryable false) — never a fallback to
 * unsigned code.
 *
 * Plugins are deployment-wide (like policy bundles): installing, enabling
 * and disabling need a key that is not bound to a tenant.
 */
import type { Principal } from '../auth/principal.ts';
import { requirePermission } from '../auth/principal.ts';
import type { DomainContext } from '../policy/audit-event.ts';
import { SvcError } from '../errors.ts';
import type { LedgerEventInput } from '../ledger/event.ts';
import type { Db } from '../store/db.ts';
import { type PluginRecord, PluginRepository } from '../store/repositories/plugins.ts';
import { validate } from '../validation.ts';
import { type PluginBundle as PluginBundleType, PluginBundle, PluginIdParams, type PluginManifest, type PluginView } from './plugin-manifest.ts';
import type { PluginSandbox, SandboxResult } from './plugin-sandbox.ts';
import type { SandboxOp } from './sandbox-protocol.ts';
import type { TrustList } from './trust-list.ts';
import { type CheckedBundle, checkBundle, type SignatureFailure } from './verify-bundle.ts';

export interface PluginLimits {
  maxTimeoutMs: number;
  maxMemoryBytes: number;
  maxInputBytes: number;
  maxBundleBytes: number;
}

export interface PluginMetrics {
  signatureFailure(stage: SignatureStage): void;
  call(plugin: string, outcome: 'ok' | 'error', seconds: number): void;
  error(plugin: string, reason: string): void;
}

export type SignatureStage = 'install' | 'enable' | 'load';

/** Whose work a plugin call serves: named in its ledger event (never the data itself). */
export interface CallSubject {
  tenant?: string;
  workUnitId?: string;
}

export interface PluginServiceDeps {
  repo: PluginRepository;
  trust: TrustList;
  sandbox: PluginSandbox;
  /** Audit events; `commit` writes a plugin row and the event that describes it in one transaction. */
  ledger: { append(input: LedgerEventInput): Promise<unknown>; commit(unit: { write?: (tx: Db) => Promise<unknown>; events: readonly LedgerEventInput[] }): Promise<unknown> };
  limits: PluginLimits;
  metrics: PluginMetrics;
  /** Plugin ids the rollback switch `disable_plugin` names. */
  switchedOff: () => readonly string[];
  /** Adapter names svc has built in: a plugin adapter may not take one. */
  builtinAdapters: () => readonly string[];
  now?: () => Date;
}

/** A plugin verified and ready to run in this process. */
interface Loaded {
  manifest: PluginManifest;
  bundleSha256: string;
  code: string;
}

export interface TransformOutput {
  bytes: Uint8Array;
  /** `id@version` */
  plugin: string;
}

export interface VerifierOutput {
  passed: boolean;
  reason: string;
  /** `id@version` */
  verifier: string;
}

const unavailable = (id: string, message: string, reason: string, retryable = false) => new SvcError('plugin_unavailable', message, { retryable, details: { plugin: id, reason } });

export class PluginService {
  readonly #d: PluginServiceDeps;
  /** Verified bundles by bundle digest: a bundle is checked once per process, then again only if its row changes. */
  readonly #loaded = new Map<string, Loaded>();
  /** Bundles that failed their load check in this process (audited once, refused every time). */
  readonly #failedLoads = new Set<string>();

  constructor(deps: PluginServiceDeps) {
    this.#d = deps;
  }

  get limits(): PluginLimits {
    return this.#d.limits;
  }

  async list(ctx: DomainContext): Promise<{ plugins: PluginView[] }> {
    requirePermission(ctx.principal, 'work_units:read');
    return { plugins: (await this.#d.repo.list()).map((r) => this.#view(r)) };
  }

  async get(ctx: DomainContext, id: string): Promise<PluginView> {
    requirePermission(ctx.principal, 'work_units:read');
    return this.#view(await this.#record(id));
  }

  /**
   * Installs a signed bundle. A new or replaced plugin starts disabled: enable
   * is a separate, audited decision. Installing the same bundle again is a no-op.
   */
  async install(ctx: DomainContext, body: unknown): Promise<{ plugin: PluginView; created: boolean }> {
    this.#requireManage(ctx.principal);
    const size = JSON.stringify(body ?? null).length;
    if (size > this.#d.limits.maxBundleBytes) {
      throw new SvcError('payload_too_large', `the bundle is ${size} bytes; plugins.max_bundle_bytes is ${this.#d.limits.maxBundleBytes}`);
    }
    const bundle = validate(PluginBundle, body, 'invalid_request', 'plugin bundle');
    const checked = checkBundle(bundle, this.#d.trust);
    if (!checked.verdict.ok) {
      await this.#signatureFailed(ctx, 'install', checked.manifest, checked.verdict.failure);
      throw new SvcError('plugin_signature_invalid', `plugin ${checked.manifest.id}@${checked.manifest.version} refused: ${checked.verdict.message}`, {
        details: { plugin: checked.manifest.id, version: checked.manifest.version, failure: checked.verdict.failure },
      });
    }
    const { manifest } = checked;
    if (manifest.adapter && this.#d.builtinAdapters().includes(manifest.adapter.name)) {
      throw new SvcError('conflict', `adapter name ${manifest.adapter.name} belongs to a built-in adapter`);
    }
    if (manifest.adapter) {
      const clash = (await this.#d.repo.list()).find((r) => r.id !== manifest.id && r.kind === 'adapter' && parseStored(r).adapter?.name === manifest.adapter?.name);
      if (clash) throw new SvcError('conflict', `adapter name ${manifest.adapter.name} is already provided by plugin ${clash.id}`);
    }
    const existing = await this.#d.repo.get(manifest.id);
    if (existing?.bundle_sha256 === checked.bundleSha256) return { plugin: this.#view(existing), created: false };
    const at = this.#now();
    const record: PluginRecord = {
      id: manifest.id,
      version: manifest.version,
      kind: manifest.kind,
      publisher: manifest.publisher,
      bundle_sha256: checked.bundleSha256,
      manifest_json: bundle.manifest_json,
      signature: bundle.signature ?? null,
      files: bundle.files,
      status: 'disabled',
      installed_at: at,
      installed_by: ctx.principal.actor,
      updated_at: at,
      updated_by: ctx.principal.actor,
    };
    await this.#d.ledger.commit({
      write: (tx) => new PluginRepository(tx).put(record),
      events: [this.#event(ctx, 'plugin.installed', { plugin_id: manifest.id, version: manifest.version, kind: manifest.kind, publisher: manifest.publisher, bundle_sha256: checked.bundleSha256, replaced_version: existing?.version ?? null })],
    });
    return { plugin: this.#view(record), created: true };
  }

  /** Checks the stored bundle's signature again, then enables it. */
  async enable(ctx: DomainContext, id: string): Promise<PluginView> {
    this.#requireManage(ctx.principal);
    const record = await this.#record(id);
    const verdict = this.#recheck(record);
    if (!verdict.ok) {
      await this.#signatureFailed(ctx, 'enable', { id, version: record.version, publisher: record.publisher }, verdict.failure);
      throw new SvcError('plugin_signature_invalid', `plugin ${id} cannot be enabled: ${verdict.message}`, { details: { plugin: id, version: record.version, failure: verdict.failure } });
    }
    if (record.status !== 'enabled') await this.#setStatus(ctx, record, 'enabled');
    return this.#view(await this.#record(id));
  }

  /** The rollback switch for one plugin: from now on requests that need it get `plugin_unavailable`. */
  async disable(ctx: DomainContext, id: string): Promise<PluginView> {
    if (!ctx.principal.permissions.has('plugins:manage')) requirePermission(ctx.principal, 'admin:switches');
    this.#requireDeploymentWide(ctx.principal);
    const record = await this.#record(id);
    if (record.status !== 'disabled') await this.#setStatus(ctx, record, 'disabled');
    return this.#view(await this.#record(id));
  }

  /** What the planner needs of a transform or verifier plugin; throws `plugin_unavailable` when it cannot run. */
  async describe(ctx: DomainContext, id: string): Promise<{ kind: PluginManifest['kind']; semantic: boolean; name: string }> {
    const loaded = await this.#load(ctx, id);
    return { kind: loaded.manifest.kind, semantic: loaded.manifest.semantic === true, name: `${id}@${loaded.manifest.version}` };
  }

  async transform(ctx: DomainContext, id: string, bytes: Uint8Array, subject: CallSubject = {}): Promise<TransformOutput> {
    const loaded = await this.#load(ctx, id);
    if (loaded.manifest.kind !== 'transform') throw new SvcError('invalid_request', `plugin ${id} is a ${loaded.manifest.kind}, not a transform`);
    return this.#call(ctx, loaded, subject, { op: 'transform', bytes, text: utf8OrNull(bytes), params: {} }, (r) => {
      if (r.kind === 'json') return 'a transform must return bytes or text';
      return { bytes: r.kind === 'bytes' ? r.bytes : new TextEncoder().encode(r.text), plugin: nameOf(loaded) };
    });
  }

  async verify(ctx: DomainContext, id: string, bytes: Uint8Array, subject: CallSubject = {}): Promise<VerifierOutput> {
    const loaded = await this.#load(ctx, id);
    if (loaded.manifest.kind !== 'verifier') throw new SvcError('invalid_request', `plugin ${id} is a ${loaded.manifest.kind}, not a verifier`);
    return this.#call(ctx, loaded, subject, { op: 'verify', bytes, text: utf8OrNull(bytes), params: {} }, (r) => {
      const out = r.kind === 'json' ? (safeJson(r.json) as { passed?: unknown; reason?: unknown } | undefined) : undefined;
      if (!out || typeof out.passed !== 'boolean') return 'a verifier must return { passed: boolean, reason?: string }';
      return { passed: out.passed, reason: typeof out.reason === 'string' ? out.reason.slice(0, 500) : '', verifier: nameOf(loaded) };
    });
  }

  /** Enabled adapter plugins as adapter descriptors (the `/v1/adapters` list merges them with the built-in ones). */
  async adapters(): Promise<{ plugin: string; name: string; family: string; version: string; summary: string; operations: string[]; status: 'enabled' | 'disabled' }[]> {
    const off = new Set(this.#d.switchedOff());
    return (await this.#d.repo.list())
      .filter((r) => r.kind === 'adapter')
      .map((r) => ({ r, m: parseStored(r) }))
      .filter(({ m }) => m.adapter !== undefined)
      .map(({ r, m }) => ({
        plugin: r.id,
        name: m.adapter!.name,
        family: m.adapter!.family,
        version: r.version,
        summary: m.summary,
        operations: [...m.adapter!.operations],
        status: r.status === 'enabled' && !off.has(r.id) ? ('enabled' as const) : ('disabled' as const),
      }));
  }

  /** Runs an adapter plugin's operation. No plugin provides the adapter (or it is disabled) → `adapter_unavailable`. */
  async callAdapter(ctx: DomainContext, adapter: string, operation: string, body: unknown): Promise<object> {
    const provider = (await this.adapters()).find((a) => a.name === adapter);
    if (!provider) throw new SvcError('adapter_unavailable', `no adapter named ${JSON.stringify(adapter.slice(0, 64))} is installed`, { retryable: false, details: { adapter: adapter.slice(0, 64) } });
    if (provider.status !== 'enabled') throw new SvcError('adapter_unavailable', `adapter ${adapter} (plugin ${provider.plugin}) is disabled`, { retryable: false, details: { adapter, plugin: provider.plugin } });
    if (!provider.operations.includes(operation)) throw new SvcError('not_found', `adapter ${adapter} has no operation ${JSON.stringify(operation.slice(0, 64))}`);
    const loaded = await this.#load(ctx, provider.plugin);
    const tenant = ctx.principal.tenant ?? null;
    return this.#call(ctx, loaded, tenant ? { tenant } : {}, { op: 'adapter', operation, body, params: { tenant } }, (r) => {
      const out = r.kind === 'json' ? safeJson(r.json) : undefined;
      if (out === null || typeof out !== 'object' || Array.isArray(out)) return 'an adapter operation must return a JSON object';
      return out as object;
    });
  }

  /**
   * One sandboxed call: limits from the manifest capped by svc's, then the
   * outcome counted (metrics) and audited (`plugin.called` /
   * `plugin.call_failed`: which code ran, for whom, and how it ended; the
   * dashboard's plugin error rate is computed from these events). `interpret`
   * turns the sandbox's answer into the result, or names what was wrong with it.
   */
  async #call<T>(ctx: DomainContext, loaded: Loaded, subject: CallSubject, call: SandboxOp, interpret: (r: Exclude<SandboxResult, { ok: false }>) => T | string): Promise<T> {
    const limits = loaded.manifest.limits ?? {};
    const started = performance.now();
    const r = await this.#d.sandbox.run({
      code: loaded.code,
      filename: loaded.manifest.entry,
      timeoutMs: Math.min(limits.timeout_ms ?? this.#d.limits.maxTimeoutMs, this.#d.limits.maxTimeoutMs),
      memoryBytes: Math.min(limits.memory_bytes ?? this.#d.limits.maxMemoryBytes, this.#d.limits.maxMemoryBytes),
      call,
    });
    const seconds = (performance.now() - started) / 1000;
    const result = r.ok ? interpret(r) : undefined;
    const failure = !r.ok ? { reason: r.reason, message: r.reason === 'error' ? r.message : r.reason } : typeof result === 'string' ? { reason: 'bad_output' as const, message: result } : undefined;
    const id = loaded.manifest.id;
    this.#d.metrics.call(id, failure ? 'error' : 'ok', seconds);
    if (failure) this.#d.metrics.error(id, failure.reason);
    await this.#d.ledger.append({
      type: failure ? 'plugin.call_failed' : 'plugin.called',
      tenant: subject.tenant ?? null,
      actor: ctx.principal.actor,
      work_unit_id: subject.workUnitId ?? null,
      trace_id: ctx.traceId ?? null,
      // Never the plugin's input or output: ids, the outcome and its class only.
      payload: { plugin_id: id, version: loaded.manifest.version, kind: loaded.manifest.kind, duration_ms: Math.round(seconds * 1000), ...(failure ? { reason: failure.reason } : {}) },
    });
    if (failure) {
      // A timeout or a crashed worker may pass on a retry; a plugin error, bad output or a limit it hit will not.
      throw unavailable(id, `plugin ${nameOf(loaded)} failed: ${failure.reason}${failure.reason === 'timeout' || failure.reason === 'memory' || failure.reason === 'crash' ? '' : ` (${failure.message.slice(0, 300)})`}`, failure.reason, failure.reason === 'timeout' || failure.reason === 'crash');
    }
    return result as T;
  }

  /** The plugin ready to run, checked against the trust list once per bundle per process. */
  async #load(ctx: DomainContext, id: string): Promise<Loaded> {
    const record = await this.#d.repo.get(id);
    if (!record) throw unavailable(id, `plugin ${id} is not installed`, 'not_installed');
    if (record.status !== 'enabled') throw unavailable(id, `plugin ${id} is disabled`, 'disabled');
    if (this.#d.switchedOff().includes(id)) throw unavailable(id, `plugin ${id} is switched off (disable_plugin)`, 'switched_off');
    const cached = this.#loaded.get(record.bundle_sha256);
    if (cached) return cached;
    if (this.#failedLoads.has(record.bundle_sha256)) throw unavailable(id, `plugin ${id} failed its signature check and was not loaded`, 'signature_failed');
    let checked: CheckedBundle;
    try {
      checked = checkBundle(toBundle(record), this.#d.trust);
    } catch {
      checked = undefined as never;
    }
    if (!checked || !checked.verdict.ok) {
      this.#failedLoads.add(record.bundle_sha256);
      const manifest = checked?.manifest ?? ({ id, version: record.version, publisher: record.publisher } as PluginManifest);
      await this.#signatureFailed(ctx, 'load', manifest, checked?.verdict.ok === false ? checked.verdict.failure : 'bad_signature');
      throw unavailable(id, `plugin ${id} failed its signature check and was not loaded`, 'signature_failed');
    }
    const loaded: Loaded = { manifest: checked.manifest, bundleSha256: checked.bundleSha256, code: (checked.files.get(checked.manifest.entry) as Buffer).toString('utf8') };
    this.#loaded.set(record.bundle_sha256, loaded);
    return loaded;
  }

  async #record(id: string): Promise<PluginRecord> {
    validate(PluginIdParams, { id }, 'invalid_request', 'path parameters');
    const record = await this.#d.repo.get(id);
    if (!record) throw new SvcError('not_found', `plugin ${id} is not installed`);
    return record;
  }

  #requireManage(principal: Principal): void {
    requirePermission(principal, 'plugins:manage');
    this.#requireDeploymentWide(principal);
  }

  #requireDeploymentWide(principal: Principal): void {
    if (principal.tenant !== undefined) throw new SvcError('tenant_forbidden', 'plugins are deployment-wide: use a key that is not bound to a tenant');
  }

  async #signatureFailed(ctx: DomainContext, stage: SignatureStage, manifest: Pick<PluginManifest, 'id' | 'version' | 'publisher'>, failure: SignatureFailure): Promise<void> {
    this.#d.metrics.signatureFailure(stage);
    await this.#audit(ctx, 'plugin.signature_failed', { plugin_id: manifest.id, version: manifest.version, publisher: manifest.publisher, failure, stage });
  }

  /** The status change and its ledger event in one transaction; refused when another bundle replaced the row meanwhile. */
  async #setStatus(ctx: DomainContext, record: PluginRecord, status: 'enabled' | 'disabled'): Promise<void> {
    let changed = false;
    await this.#d.ledger.commit({
      write: async (tx) => {
        changed = await new PluginRepository(tx).setStatus(record.id, record.bundle_sha256, status, ctx.principal.actor, this.#now());
        // Rolling back keeps the event out of the ledger when nothing changed.
        if (!changed) throw new SvcError('conflict', `plugin ${record.id} was replaced meanwhile; check it and try again`);
      },
      events: [this.#event(ctx, `plugin.${status}`, { plugin_id: record.id, version: record.version, bundle_sha256: record.bundle_sha256 })],
    });
  }

  /** The full check of a stored bundle; a row that no longer parses counts as a bad signature (it is not what was signed). */
  #recheck(record: PluginRecord): { ok: true } | { ok: false; failure: SignatureFailure; message: string } {
    try {
      return checkBundle(toBundle(record), this.#d.trust).verdict;
    } catch {
      return { ok: false, failure: 'bad_signature', message: 'the stored bundle no longer parses' };
    }
  }

  #event(ctx: DomainContext, type: string, payload: Record<string, unknown>): LedgerEventInput {
    return { type, tenant: null, actor: ctx.principal.actor, trace_id: ctx.traceId ?? null, payload };
  }

  async #audit(ctx: DomainContext, type: string, payload: Record<string, unknown>): Promise<void> {
    await this.#d.ledger.append(this.#event(ctx, type, payload));
  }

  #view(r: PluginRecord): PluginView {
    const m = parseStored(r);
    return {
      id: r.id,
      version: r.version,
      kind: r.kind,
      publisher: r.publisher,
      summary: m.summary,
      capabilities: [...m.capabilities],
      semantic: m.semantic === true,
      adapter: m.adapter ? { name: m.adapter.name, family: m.adapter.family, operations: [...m.adapter.operations] } : null,
      status: r.status,
      switched_off: this.#d.switchedOff().includes(r.id),
      bundle_sha256: r.bundle_sha256,
      installed_at: r.installed_at,
      installed_by: r.installed_by,
      updated_at: r.updated_at,
      updated_by: r.updated_by,
    };
  }

  #now(): string {
    return (this.#d.now?.() ?? new Date()).toISOString();
  }
}

function toBundle(r: PluginRecord): PluginBundleType {
  return { manifest_json: r.manifest_json, ...(r.signature ? { signature: r.signature } : {}), files: r.files };
}

/**
 * The stored manifest for display (validated at install; never used to decide
 * trust). A row that no longer parses still lists — as an unreadable bundle
 * that can never load — instead of breaking every list.
 */
function parseStored(r: PluginRecord): PluginManifest {
  try {
    const m = JSON.parse(r.manifest_json) as PluginManifest;
    if (m && typeof m === 'object' && Array.isArray(m.capabilities) && typeof m.summary === 'string') return m;
  } catch {
    // fall through
  }
  return { schema: 'svc.plugin/v1', id: r.id, version: r.version, kind: r.kind as PluginManifest['kind'], publisher: r.publisher, summary: '(stored manifest unreadable: the bundle cannot load)', capabilities: [], entry: '', files: {} };
}

const nameOf = (l: Loaded) => `${l.manifest.id}@${l.manifest.version}`;

function utf8OrNull(bytes: Uint8Array): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
