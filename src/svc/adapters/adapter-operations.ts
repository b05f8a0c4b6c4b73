/**
 * The adapter-specific operations by adapter and path, one table for every
 * surface that addresses them by name (gRPC `AdapterService/Call`, the CLI's
 * generic `svc adapter call`). Each entry is the same domain function the
 * REST route `POST /v1/adapters/<adapter>/<operation>` calls.
 */
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import { ADAPTER_NAME_PATTERN, type AdapterRegistry } from './adapter-registry.ts';

const NAME = new RegExp(ADAPTER_NAME_PATTERN);
const OPERATION = /^[a-z][a-z0-9_-]{0,63}(\/[a-z][a-z0-9_-]{0,63})?$/;

export type AdapterOperation = (ctx: RequestContext, body: unknown) => Promise<object>;

/** Runs the operations of adapters that signed plugins provide (PluginService.callAdapter). */
export type PluginAdapterCall = (ctx: RequestContext, adapter: string, operation: string, body: unknown) => Promise<object>;

export class AdapterOperations {
  readonly #registry: AdapterRegistry;
  readonly #ops = new Map<string, AdapterOperation>();
  #plugins: PluginAdapterCall | undefined;
  constructor(registry: AdapterRegistry) {
    this.#registry = registry;
  }

  add(adapter: string, operation: string, fn: AdapterOperation): void {
    this.#ops.set(`${adapter}/${operation}`, fn);
  }

  attachPlugins(call: PluginAdapterCall): void {
    this.#plugins = call;
  }

  /** Unknown or disabled adapter → `adapter_unavailable`; unknown operation of a known adapter → `not_found`. */
  async call(ctx: RequestContext, adapter: string, operation: string, body: unknown): Promise<object> {
    if (!NAME.test(adapter)) throw new SvcError('invalid_request', `invalid path parameters: adapter names match ${ADAPTER_NAME_PATTERN}`);
    if (!OPERATION.test(operation)) throw new SvcError('invalid_request', 'invalid path parameters: an operation is one or two lower-case path segments');
    // Built-in adapters first; a name svc does not have built in may be a plugin adapter.
    if (!this.#registry.has(adapter) && this.#plugins) return this.#plugins(ctx, adapter, operation, body);
    this.#registry.require(adapter);
    const fn = this.#ops.get(`${adapter}/${operation}`);
    if (!fn) throw new SvcError('not_found', `adapter ${adapter} has no operation ${JSON.stringify(operation.slice(0, 64))}`);
    return fn(ctx, body);
  }
}
