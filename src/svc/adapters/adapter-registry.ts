/**
 * The workload adapters svc can route work to (spec: route group
 * `/v1/adapters`, error `adapter_unavailable`). Built-in adapters register at
 * start-up; a plugin adapter registers the same descriptor with `source:
 * 'plugin'` once loaded. An adapter that is not registered, or that the
 * operator disabled (`adapters.disabled`), is unavailable: requests that need
 * it fail with `adapter_unavailable` and nothing is stored.
 */
import { SvcError } from '../errors.ts';

export interface AdapterDescriptor {
  name: string;
  family: 'lakehouse' | 'stream' | 'training' | string;
  version: string;
  source: 'builtin' | 'plugin';
  summary: string;
  /** Adapter-specific operations, as paths under `/v1/adapters/<name>/`. */
  operations: readonly string[];
}

export interface AdapterStatus extends AdapterDescriptor {
  status: 'enabled' | 'disabled';
  /** Plugin adapters: the plugin id that provides it. */
  plugin?: string;
}

/** Adapters provided by signed plugins (src/svc/plugins): read from the plugin table on every call, so every process sees installs at once. */
export interface PluginAdapterSource {
  adapters(): Promise<{ plugin: string; name: string; family: string; version: string; summary: string; operations: string[]; status: 'enabled' | 'disabled' }[]>;
}

export const ADAPTER_NAME_PATTERN = '^[a-z][a-z0-9_-]{0,63}$';

export class AdapterRegistry {
  readonly #adapters = new Map<string, AdapterDescriptor>();
  readonly #disabled: Set<string>;
  #plugins: PluginAdapterSource | undefined;

  constructor(disabled: readonly string[] = []) {
    this.#disabled = new Set(disabled);
  }

  register(d: AdapterDescriptor): void {
    if (this.#adapters.has(d.name)) throw new Error(`adapter ${d.name} is already registered`);
    this.#adapters.set(d.name, d);
  }

  attachPlugins(source: PluginAdapterSource): void {
    this.#plugins = source;
  }

  /** True for a built-in adapter (enabled or not); plugin adapters are looked up through {@link listAll}. */
  has(name: string): boolean {
    return this.#adapters.has(name);
  }

  /** Built-in and plugin adapters with their status, by name. */
  async listAll(): Promise<AdapterStatus[]> {
    const plugins: AdapterStatus[] = (await this.#plugins?.adapters())?.map((p) => ({ name: p.name, family: p.family, version: p.version, source: 'plugin', summary: p.summary, operations: p.operations, status: p.status, plugin: p.plugin })) ?? [];
    return [...this.list(), ...plugins].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** One adapter, built-in or plugin; unknown → `not_found`. */
  async getAny(name: string): Promise<AdapterStatus> {
    const found = (await this.listAll()).find((a) => a.name === name);
    if (!found) throw new SvcError('not_found', `no adapter named ${JSON.stringify(name.slice(0, 64))} is installed`);
    return found;
  }

  /** One adapter with its status (a lookup: an unknown name is `not_found`; using it is `adapter_unavailable`). */
  get(name: string): AdapterStatus {
    const found = this.list().find((a) => a.name === name);
    if (!found) throw new SvcError('not_found', `no adapter named ${JSON.stringify(name.slice(0, 64))} is installed`);
    return found;
  }

  list(): AdapterStatus[] {
    return [...this.#adapters.values()].sort((a, b) => a.name.localeCompare(b.name)).map((d) => ({ ...d, status: this.#disabled.has(d.name) ? 'disabled' : 'enabled' }));
  }

  /** The adapter, or `adapter_unavailable` (not retryable: an operator has to register or enable it). */
  require(name: string): AdapterDescriptor {
    const d = this.#adapters.get(name);
    if (!d) throw new SvcError('adapter_unavailable', `no adapter named ${JSON.stringify(name.slice(0, 64))} is installed`, { retryable: false, details: { adapter: name.slice(0, 64) } });
    if (this.#disabled.has(name)) throw new SvcError('adapter_unavailable', `adapter ${name} is disabled on this deployment (adapters.disabled)`, { retryable: false, details: { adapter: name } });
    return d;
  }
}
