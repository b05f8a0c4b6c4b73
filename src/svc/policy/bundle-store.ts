/**
 * Bundles on disk in the state directory:
 *
 *   <stateDir>/policy/bundles/<name>/active.yaml               the active bundle
 *   <stateDir>/policy/bundles/<name>/history/<version>-<hash16>.yaml   every bundle ever active
 *
 * Files are YAML that `svc policy validate` accepts, written atomically
 * (temp file + rename) so a reader never sees half a bundle. A version
 * string is immutable: publishing different content under a version that
 * exists is a conflict.
 */
import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { newId } from '../../core/ids.ts';
import { SvcError } from '../errors.ts';
import { bundleToDocument, makeBundle, type PolicyBundle } from './bundle.ts';
import type { BundleDoc } from './policy-schema.ts';
import type { BundleRef } from './types.ts';
import { type PolicyValidationIssue, validatePolicyText } from './validate-policy-text.ts';

export type ActiveBundleRead =
  | { status: 'missing'; path: string }
  | { status: 'invalid'; path: string; errors: PolicyValidationIssue[] }
  | { status: 'ok'; path: string; bundle: PolicyBundle };

export interface HistoryEntry {
  ref: BundleRef;
  file: string;
}

const HEADER = '# svc policy bundle. Validate edits with `svc policy validate <file>`, then `svc policy reload --name <name>`.\n';

export class BundleStore {
  readonly root: string;

  constructor(stateDir: string) {
    this.root = path.join(stateDir, 'policy', 'bundles');
  }

  #dir(name: string): string {
    return path.join(this.root, name);
  }

  activePath(name: string): string {
    return path.join(this.#dir(name), 'active.yaml');
  }

  async #writeAtomic(file: string, text: string): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.${Date.now()}.tmp`;
    await writeFile(tmp, text, { mode: 0o644 });
    await rename(tmp, file);
  }

  #historyFile(ref: BundleRef): string {
    return path.join(this.#dir(ref.name), 'history', `${ref.version}-${ref.hash.slice(0, 16)}.yaml`);
  }

  /** Names of every bundle that has been published. */
  async names(): Promise<string[]> {
    try {
      const entries = await readdir(this.root, { withFileTypes: true });
      return entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }

  /** Every version of `name` ever active, oldest first (ids are ULIDs, so id order is publish order). */
  async history(name: string): Promise<HistoryEntry[]> {
    const dir = path.join(this.#dir(name), 'history');
    let files: string[];
    try {
      files = (await readdir(dir)).filter((f) => f.endsWith('.yaml'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const entries: HistoryEntry[] = [];
    for (const f of files) {
      const file = path.join(dir, f);
      const result = validatePolicyText(await readFile(file, 'utf8'));
      // History files are written by this store; one that no longer validates is skipped rather than trusted.
      if (!result.ok || result.kind !== 'bundle' || !result.bundle.id) continue;
      entries.push({ ref: makeBundle(result.bundle, result.bundle.id).ref, file });
    }
    return entries.sort((a, b) => (a.ref.id < b.ref.id ? -1 : a.ref.id > b.ref.id ? 1 : 0));
  }

  /** One version from history, with its policies. */
  async get(name: string, version: string): Promise<PolicyBundle | undefined> {
    const entry = (await this.history(name)).findLast((e) => e.ref.version === version);
    if (!entry) return undefined;
    const result = validatePolicyText(await readFile(entry.file, 'utf8'));
    return result.ok && result.kind === 'bundle' ? makeBundle(result.bundle, entry.ref.id) : undefined;
  }

  /**
   * Reads and validates active.yaml. The id is resolved so the same content
   * always keeps the id it was published under; content edited on disk by
   * hand gets a fresh id and a history entry the first time it is read.
   */
  async readActive(name: string): Promise<ActiveBundleRead> {
    const file = this.activePath(name);
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { status: 'missing', path: file };
      throw err;
    }
    const result = validatePolicyText(text);
    if (!result.ok) return { status: 'invalid', path: file, errors: result.errors };
    if (result.kind !== 'bundle') {
      return { status: 'invalid', path: file, errors: [{ line: 1, column: 1, path: '', message: 'active.yaml holds a single policy; a bundle (name, version, policies) is required' }] };
    }
    if (result.bundle.name !== name) {
      return { status: 'invalid', path: file, errors: [{ line: 1, column: 1, path: '/name', message: `bundle name '${result.bundle.name}' does not match its directory '${name}'` }] };
    }
    const provisional = makeBundle(result.bundle, result.bundle.id ?? newId('pb'));
    const history = await this.history(name);
    const sameContent = history.find((e) => e.ref.hash === provisional.ref.hash);
    if (sameContent) return { status: 'ok', path: file, bundle: makeBundle(result.bundle, sameContent.ref.id) };
    const versionTaken = history.find((e) => e.ref.version === provisional.ref.version);
    if (versionTaken) {
      return {
        status: 'invalid',
        path: file,
        errors: [{ line: 1, column: 1, path: '/version', message: `version '${provisional.ref.version}' was already published with different content (hash ${versionTaken.ref.hash.slice(0, 16)}…); give the edited bundle a new version` }],
      };
    }
    const idTaken = history.some((e) => e.ref.id === provisional.ref.id);
    const bundle = idTaken ? makeBundle(result.bundle, newId('pb')) : provisional;
    await this.#writeAtomic(this.#historyFile(bundle.ref), HEADER + stringify(bundleToDocument(bundle)));
    return { status: 'ok', path: file, bundle };
  }

  /**
   * Publishes a validated bundle document and makes it active. Returns the
   * stored bundle and whether it is new (republishing identical content under
   * the same version is idempotent and keeps the original id).
   */
  async publish(doc: BundleDoc): Promise<{ bundle: PolicyBundle; created: boolean }> {
    const history = await this.history(doc.name);
    const candidate = makeBundle(doc, newId('pb'));
    const sameVersion = history.find((e) => e.ref.version === candidate.ref.version);
    if (sameVersion && sameVersion.ref.hash !== candidate.ref.hash) {
      throw new SvcError('conflict', `bundle '${doc.name}' version '${doc.version}' was already published with different content; publish under a new version`, {
        details: { name: doc.name, version: doc.version, existing_hash: sameVersion.ref.hash, new_hash: candidate.ref.hash },
      });
    }
    const bundle = sameVersion ? makeBundle(doc, sameVersion.ref.id) : candidate;
    const text = HEADER + stringify(bundleToDocument(bundle));
    if (!sameVersion) await this.#writeAtomic(this.#historyFile(bundle.ref), text);
    await this.#writeAtomic(this.activePath(doc.name), text);
    return { bundle, created: !sameVersion };
  }

  /**
   * Writes `bundle` as the first active bundle of its name (and its history
   * entry), keeping its id. Used at first start so the bundle in force is a
   * file an operator can edit and reload from the start (docs/policy.md).
   * Never overwrites: an existing active file (valid or not) wins.
   */
  async writeInitial(bundle: PolicyBundle): Promise<void> {
    const text = HEADER + stringify(bundleToDocument(bundle));
    await this.#writeAtomic(this.#historyFile(bundle.ref), text);
    await mkdir(this.#dir(bundle.ref.name), { recursive: true });
    try {
      await writeFile(this.activePath(bundle.ref.name), text, { flag: 'wx', mode: 0o644 });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }

  /**
   * Makes a bundle that another svc process put in force this process's active bundle too, keeping its id
   * (so `X-SVC-Policy-Bundle` names the same bundle whichever process answers). Adds it to history once.
   */
  async adopt(bundle: PolicyBundle): Promise<void> {
    const text = HEADER + stringify(bundleToDocument(bundle));
    const history = await this.history(bundle.ref.name);
    if (!history.some((e) => e.ref.hash === bundle.ref.hash)) await this.#writeAtomic(this.#historyFile(bundle.ref), text);
    await this.#writeAtomic(this.activePath(bundle.ref.name), text);
  }

  /** The YAML every process can adopt: the bundle with its id, as written to active.yaml. */
  static documentOf(bundle: PolicyBundle): string {
    return HEADER + stringify(bundleToDocument(bundle));
  }

  /** Makes a version from history active again (rollback). */
  async activateVersion(name: string, version: string): Promise<PolicyBundle> {
    const bundle = await this.get(name, version);
    if (!bundle) throw new SvcError('not_found', `bundle '${name}' has no version '${version}'`, { details: { name, version } });
    await this.#writeAtomic(this.activePath(name), HEADER + stringify(bundleToDocument(bundle)));
    return bundle;
  }
}
