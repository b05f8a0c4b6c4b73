/**
 * The policy domain service: validation, evaluation, publish, reload, bundle
 * listing and switching. Routes and CLI commands are thin adapters over it.
 * Permissions and tenant binding are enforced here so every surface gets
 * them; every state change is written to the ledger through `AuditSink`.
 */
import { requirePermission, resolveTenant } from '../auth/principal.ts';
import { SvcError } from '../errors.ts';
import { validate } from '../validation.ts';
import type { AuditSink, DomainContext } from './audit-event.ts';
import type { PolicyBundle } from './bundle.ts';
import { BundleStore } from './bundle-store.ts';
import { builtinBundle } from './default-bundle.ts';
import { PolicyEngine } from './policy-engine.ts';
import { EvaluateRequest } from './policy-requests.ts';
import type { BundleRef, PolicyDecision, PolicyInput } from './types.ts';
import { type PolicyValidationIssue, type PolicyValidationResult, validatePolicyText } from './validate-policy-text.ts';
import { makeBundle } from './bundle.ts';
import type { PolicyDocumentRepository } from '../store/repositories/policy-documents.ts';

export interface PolicyServiceOptions {
  stateDir: string;
  /** The bundle name in force at start (config `policy.active_bundle`, default `default`). */
  activeBundleName?: string;
  audit: AuditSink;
  /**
   * Where bundles put in force are shared with the other svc processes of a deployment (PostgreSQL); absent: a
   * single process. Publish, reload and bundle switches write the document here before their ledger event, so a
   * process that sees the event can adopt the bundle (`adopt`).
   */
  documents?: PolicyDocumentRepository;
}

export type ReloadResult =
  | { reloaded: true; in_force: boolean; bundle: BundleRef; changed: boolean }
  | { reloaded: false; errors: PolicyValidationIssue[]; kept: BundleRef };

export interface BundleSummary {
  name: string;
  in_force: boolean;
  active: BundleRef | null;
  versions: BundleRef[];
}

/** What `open` found on disk, so readiness can say why the built-in bundle is in force. */
export type StartupBundleState = { source: 'disk' } | { source: 'builtin'; reason: 'none_published' | 'invalid_on_disk'; errors?: PolicyValidationIssue[] };

function refOf(b: BundleRef): BundleRef {
  return { id: b.id, name: b.name, version: b.version, hash: b.hash };
}

export class PolicyService {
  readonly engine: PolicyEngine;
  readonly store: BundleStore;
  readonly startup: StartupBundleState;
  #activeName: string;
  readonly #audit: AuditSink;
  readonly #documents: PolicyDocumentRepository | undefined;

  private constructor(store: BundleStore, engine: PolicyEngine, activeName: string, audit: AuditSink, startup: StartupBundleState, documents?: PolicyDocumentRepository) {
    this.#documents = documents;
    this.store = store;
    this.engine = engine;
    this.#activeName = activeName;
    this.#audit = audit;
    this.startup = startup;
  }

  /** Loads the active bundle from disk; falls back to the built-in bundle when none is published or the file is invalid. */
  static async open(options: PolicyServiceOptions): Promise<PolicyService> {
    const store = new BundleStore(options.stateDir);
    const name = options.activeBundleName ?? 'default';
    const read = await store.readActive(name);
    let bundle: PolicyBundle;
    let startup: StartupBundleState;
    if (read.status === 'ok') {
      bundle = read.bundle;
      startup = { source: 'disk' };
    } else {
      bundle = builtinBundle(name);
      // First start: write the built-in bundle out as <name>/active.yaml so
      // `reload` and publishing work from the start (issue 10). An invalid
      // file on disk is left for the operator to fix.
      if (read.status === 'missing') await store.writeInitial(bundle);
      startup = read.status === 'missing' ? { source: 'builtin', reason: 'none_published' } : { source: 'builtin', reason: 'invalid_on_disk', errors: read.errors };
    }
    return new PolicyService(store, new PolicyEngine(bundle), name, options.audit, startup, options.documents);
  }

  get activeBundleName(): string {
    return this.#activeName;
  }

  /** Validates a policy or bundle document (offline-capable; the CLI calls `validatePolicyText` directly). */
  validate(ctx: DomainContext, text: string): PolicyValidationResult {
    requirePermission(ctx.principal, 'policy:read');
    return validatePolicyText(text);
  }

  /** Builds the evaluator input from a request; identity and tenant come from the principal, never the body. */
  toInput(ctx: DomainContext, request: EvaluateRequest): PolicyInput {
    const tenant = resolveTenant(ctx.principal, request.tenant);
    const { tenant: _ignored, ...rest } = request;
    return { ...rest, tenant, principal: { actor: ctx.principal.actor, roles: ctx.principal.roles, tenant: ctx.principal.tenant } };
  }

  /** `POST /v1/policies/evaluate`: validates the body, then returns the decision (which names the bundle it was made under). */
  evaluate(ctx: DomainContext, body: unknown): PolicyDecision {
    requirePermission(ctx.principal, 'policy:read');
    return this.engine.evaluate(this.toInput(ctx, validate(EvaluateRequest, body)));
  }

  /**
   * Re-reads `<name>/active.yaml`. When valid and `name` is the bundle in
   * force, it is swapped in and `policy.bundle.reloaded` is written; when
   * invalid, the old bundle stays and `policy.bundle.reload_failed` says why.
   */
  async reload(ctx: DomainContext, name: string): Promise<ReloadResult> {
    requirePermission(ctx.principal, 'policy:publish');
    const tenant = resolveTenant(ctx.principal, undefined);
    const kept = refOf(this.engine.activeBundle());
    const read = await this.store.readActive(name);
    if (read.status !== 'ok') {
      const errors = read.status === 'missing' ? [{ line: 1, column: 1, path: '', message: `no active bundle file at ${read.path}` }] : read.errors;
      await this.#audit.append({
        type: 'policy.bundle.reload_failed',
        tenant,
        actor: ctx.principal.actor,
        policy_bundle_id: kept.id,
        ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
        payload: { name, errors: errors.slice(0, 20), kept },
      });
      return { reloaded: false, errors, kept };
    }
    const inForce = name === this.#activeName;
    const changed = read.bundle.ref.hash !== kept.hash;
    await this.#share(read.bundle);
    if (inForce) this.engine.activate(read.bundle);
    const ref = refOf(read.bundle.ref);
    await this.#audit.append({
      type: 'policy.bundle.reloaded',
      tenant,
      actor: ctx.principal.actor,
      policy_bundle_id: ref.id,
      ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
      payload: { name, version: ref.version, bundle_hash: ref.hash, bundle_id: ref.id, in_force: inForce, changed: inForce && changed },
    });
    return { reloaded: true, in_force: inForce, bundle: ref, changed: inForce && changed };
  }

  /**
   * Publishes a bundle document under `name` (requires `policy:publish`).
   * Refusals — missing permission, invalid document, version conflict — are
   * written to the ledger as `policy.bundle.publish_refused` before the error is thrown.
   */
  async publish(ctx: DomainContext, name: string, text: string): Promise<{ bundle: BundleRef; created: boolean; in_force: boolean }> {
    const tenant = resolveTenant(ctx.principal, undefined);
    const refuse = async (reason: string, err: SvcError, extra: Record<string, unknown> = {}): Promise<never> => {
      await this.#audit.append({
        type: 'policy.bundle.publish_refused',
        tenant,
        actor: ctx.principal.actor,
        ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
        payload: { name, reason, ...extra },
      });
      throw err;
    };
    try {
      requirePermission(ctx.principal, 'policy:publish');
    } catch (err) {
      return refuse('forbidden', SvcError.from(err));
    }
    const result = validatePolicyText(text);
    if (!result.ok || result.kind !== 'bundle') {
      const errors = result.ok ? [{ line: 1, column: 1, path: '', message: 'a single policy was given; publish takes a bundle (name, version, policies)' }] : result.errors;
      return refuse('invalid', new SvcError('invalid_request', 'the bundle is invalid', { details: { errors } }), { errors: errors.slice(0, 20) });
    }
    if (result.bundle.name !== name) {
      return refuse('name_mismatch', new SvcError('invalid_request', `the document names bundle '${result.bundle.name}' but was published to '${name}'`));
    }
    let published: { bundle: PolicyBundle; created: boolean };
    try {
      published = await this.store.publish(result.bundle);
    } catch (err) {
      const e = SvcError.from(err);
      if (e.code === 'conflict') return refuse('version_conflict', e, { version: result.bundle.version });
      throw e;
    }
    const inForce = name === this.#activeName;
    await this.#share(published.bundle);
    if (inForce) this.engine.activate(published.bundle);
    const ref = refOf(published.bundle.ref);
    await this.#audit.append({
      type: 'policy.bundle.published',
      tenant,
      actor: ctx.principal.actor,
      policy_bundle_id: ref.id,
      ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
      payload: { name, version: ref.version, bundle_hash: ref.hash, bundle_id: ref.id, created: published.created, in_force: inForce, policy_count: published.bundle.content.policies.length },
    });
    return { bundle: ref, created: published.created, in_force: inForce };
  }

  /** Every published bundle with its versions; the built-in bundle appears when it is in force. */
  async listBundles(ctx: DomainContext): Promise<BundleSummary[]> {
    requirePermission(ctx.principal, 'policy:read');
    const out: BundleSummary[] = [];
    for (const name of await this.store.names()) {
      const history = await this.store.history(name);
      const read = await this.store.readActive(name);
      out.push({ name, in_force: name === this.#activeName, active: read.status === 'ok' ? refOf(read.bundle.ref) : null, versions: history.map((h) => h.ref) });
    }
    if (!out.some((b) => b.name === this.#activeName)) {
      const ref = refOf(this.engine.activeBundle());
      out.push({ name: this.#activeName, in_force: true, active: ref, versions: [ref] });
    }
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  /** One bundle with its policies: a named version from history, else the active one. */
  async getBundle(ctx: DomainContext, name: string, version?: string): Promise<PolicyBundle> {
    requirePermission(ctx.principal, 'policy:read');
    const inForce = this.engine.active();
    if (name === this.#activeName && (version === undefined || version === inForce.ref.version)) return inForce;
    if (version !== undefined) {
      const b = await this.store.get(name, version);
      if (b) return b;
    } else {
      const read = await this.store.readActive(name);
      if (read.status === 'ok') return read.bundle;
    }
    throw new SvcError('not_found', version ? `bundle '${name}' has no version '${version}'` : `no bundle named '${name}'`, { details: { name, ...(version ? { version } : {}) } });
  }

  /**
   * Puts another bundle (or another version of one) in force: the "switch
   * policy bundle" rollback. Auditing is the caller's (the switchboard
   * records the switch); this only changes what the engine evaluates.
   */
  async switchBundle(name: string, version?: string): Promise<BundleRef> {
    let bundle: PolicyBundle;
    if (version !== undefined) {
      bundle = await this.store.activateVersion(name, version);
    } else {
      const read = await this.store.readActive(name);
      if (read.status === 'invalid') throw new SvcError('invalid_request', `the active bundle '${name}' on disk is invalid`, { details: { errors: read.errors } });
      bundle = read.status === 'ok' ? read.bundle : builtinBundle(name);
    }
    await this.#share(bundle);
    this.engine.activate(bundle);
    this.#activeName = name;
    return refOf(bundle.ref);
  }

  /** Stores the document other processes adopt from (before the ledger event that tells them to). */
  async #share(bundle: PolicyBundle): Promise<void> {
    await this.#documents?.put({ hash: bundle.ref.hash, bundle_id: bundle.ref.id, name: bundle.ref.name, version: bundle.ref.version, document: BundleStore.documentOf(bundle) });
  }

  /**
   * Adopts a bundle another process put in force (cluster sync): fetched from the shared documents by content
   * hash, or by name and version for a bundle switch, validated again, checked against the hash it was announced
   * with, written to this process's bundle files and, when `inForce` (or its name is the bundle in force),
   * activated. Returns the bundle now in force when it changed, else undefined.
   */
  async adopt(target: { hash: string } | { name: string; version: string }, options: { activateName?: boolean } = {}): Promise<BundleRef | undefined> {
    if (!this.#documents) return undefined;
    const doc = 'hash' in target ? await this.#documents.byHash(target.hash) : await this.#documents.byVersion(target.name, target.version);
    if (!doc) throw new SvcError('unavailable', `policy bundle ${'hash' in target ? target.hash.slice(0, 16) : `${target.name}@${target.version}`} is not among the shared bundle documents`);
    const result = validatePolicyText(doc.document);
    if (!result.ok || result.kind !== 'bundle') throw new SvcError('internal', `the shared document of bundle ${doc.name}@${doc.version} does not validate`);
    const bundle = makeBundle(result.bundle, doc.bundle_id);
    if (bundle.ref.hash !== doc.hash) throw new SvcError('internal', `the shared document of bundle ${doc.name}@${doc.version} does not hash to ${doc.hash.slice(0, 16)}`);
    await this.store.adopt(bundle);
    if (options.activateName) this.#activeName = bundle.ref.name;
    if (bundle.ref.name !== this.#activeName || this.engine.activeBundle().hash === bundle.ref.hash) return undefined;
    this.engine.activate(bundle);
    return refOf(bundle.ref);
  }
}
