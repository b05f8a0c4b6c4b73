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
}

export const ADAPTER_NAME_PATTERN = '^[a-z][a-z0-9_-]{0,63}$';

export class AdapterRegistry {
  readonly #adapters = new Map<string, AdapterDescriptor>();
  readonly #disabled: Set<string>;

  constructor(disabled: readonly string[] = []) {
    this.#disabled = new Set(disabled);
  }

  register(d: AdapterDescriptor): void {
    if (this.#adapters.has(d.name)) throw new Error(`adapter ${d.name} is already registered`);
    this.#adapters.set(d.name, d);
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
