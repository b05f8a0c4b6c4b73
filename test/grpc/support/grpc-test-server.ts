/**
 * A real svc for gRPC tests: the HTTP test server (same app, same keys, same
 * engine) plus `startGrpcServer` on port 0, and @grpc/grpc-js clients built
 * from the same proto file. Calls are promisified and return the response or
 * stream messages together with the initial metadata; failures reject with
 * the grpc-js `ServiceError` (code, details, trailing metadata).
 */
import * as grpc from '@grpc/grpc-js';
import { startGrpcServer, type RunningGrpcServer } from '../../../src/svc/grpc/server.ts';
import { loadSvcPackage } from '../../../src/svc/grpc/proto-package.ts';
import { errorBodyOf } from '../../../src/svc/grpc/status-error.ts';
import { ADMIN_KEY, type StartOptions, type TestServer, startTestServer } from '../../helpers/server.ts';

type V1 = ReturnType<typeof loadSvcPackage>['svc']['v1'];

function clientsFor(address: string) {
  const v1: V1 = loadSvcPackage().svc.v1;
  const creds = grpc.credentials.createInsecure();
  return {
    workUnits: new v1.WorkUnitService(address, creds),
    plans: new v1.PlanService(address, creds),
    manifests: new v1.ManifestService(address, creds),
    ledger: new v1.LedgerService(address, creds),
    policy: new v1.PolicyService(address, creds),
    cache: new v1.CacheService(address, creds),
    ai: new v1.AIService(address, creds),
    objects: new v1.ObjectGatewayService(address, creds),
    admin: new v1.AdminService(address, creds),
    observability: new v1.ObservabilityService(address, creds),
    scheduler: new v1.SchedulerService(address, creds),
    approvals: new v1.ApprovalService(address, creds),
    benchmarks: new v1.BenchmarkService(address, creds),
    adapters: new v1.AdapterService(address, creds),
    plugins: new v1.PluginService(address, creds),
  };
}

export type SvcClients = ReturnType<typeof clientsFor>;

/** Metadata with an API key (default: the admin key); `null` sends none. */
export function withKey(key: string | null = ADMIN_KEY, extra: Record<string, string> = {}): grpc.Metadata {
  const md = new grpc.Metadata();
  if (key !== null) md.set('x-api-key', key);
  for (const [k, v] of Object.entries(extra)) md.set(k, v);
  return md;
}

export interface UnaryResult<Res> {
  response: Res;
  headers: grpc.Metadata;
}

type UnaryMethod<Req, Res> = (request: Req, metadata: grpc.Metadata, callback: (err: grpc.ServiceError | null, response?: Res) => void) => grpc.ClientUnaryCall;

/** One unary call: `unary(clients.workUnits, 'Create', request, withKey())`. */
export function unary<Req, Res>(client: grpc.Client, method: string, request: Req, metadata: grpc.Metadata = withKey()): Promise<UnaryResult<Res>> {
  const fn = (client as unknown as Record<string, UnaryMethod<Req, Res>>)[method];
  if (typeof fn !== 'function') throw new Error(`no method ${method}`);
  return new Promise((resolve, reject) => {
    let headers = new grpc.Metadata();
    // A failure keeps the initial metadata too (`headers` on the error): the trace id is sent before any outcome.
    const call = fn.call(client, request, metadata, (err, response) => (err ? reject(Object.assign(err, { headers })) : resolve({ response: response as Res, headers })));
    call.on('metadata', (md: grpc.Metadata) => {
      headers = md;
    });
  });
}

export interface StreamResult<Res> {
  messages: Res[];
  headers: grpc.Metadata;
  /** Set when the stream ended with an error status instead of OK. */
  error: grpc.ServiceError | undefined;
}

/** Reads a server stream to its end (or error). */
export function readStream<Req, Res>(client: grpc.Client, method: string, request: Req, metadata: grpc.Metadata = withKey()): Promise<StreamResult<Res>> {
  const fn = (client as unknown as Record<string, (req: Req, md: grpc.Metadata) => grpc.ClientReadableStream<Res>>)[method];
  if (typeof fn !== 'function') throw new Error(`no method ${method}`);
  return new Promise((resolve) => {
    const messages: Res[] = [];
    let headers = new grpc.Metadata();
    const call = fn.call(client, request, metadata);
    call.on('metadata', (md: grpc.Metadata) => {
      headers = md;
    });
    call.on('data', (m: Res) => messages.push(m));
    call.on('error', (error: grpc.ServiceError) => resolve({ messages, headers, error }));
    call.on('end', () => resolve({ messages, headers, error: undefined }));
  });
}

/** Opens a server stream and hands back its messages as they arrive, with a way to cancel. */
export function openStream<Req, Res>(client: grpc.Client, method: string, request: Req, metadata: grpc.Metadata = withKey()) {
  const fn = (client as unknown as Record<string, (req: Req, md: grpc.Metadata) => grpc.ClientReadableStream<Res>>)[method];
  if (typeof fn !== 'function') throw new Error(`no method ${method}`);
  const call = fn.call(client, request, metadata);
  const received: Res[] = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  let failure: Error | undefined;
  call.on('data', (m: Res) => {
    received.push(m);
    for (const w of waiters.filter((x) => received.length >= x.count)) w.resolve();
  });
  call.on('error', (err: grpc.ServiceError) => {
    if (err.code !== grpc.status.CANCELLED) failure = err;
  });
  return {
    received,
    /** Resolves once `count` messages have arrived (rejects after `timeoutMs`). */
    waitFor(count: number, timeoutMs = 10_000): Promise<Res[]> {
      if (received.length >= count) return Promise.resolve(received.slice(0, count));
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(failure ?? new Error(`only ${received.length} of ${count} stream messages arrived`)), timeoutMs);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received.slice(0, count));
          },
        });
      });
    },
    cancel: () => call.cancel(),
  };
}

/** The spec's error body carried in a failed call's trailing metadata. */
export function errorBodyFrom(err: unknown): { error: { code: string; message: string; work_unit_id: string | null; policy_bundle_id: string | null; retryable: boolean; details?: Record<string, unknown> } } {
  const body = errorBodyOf((err as grpc.ServiceError).metadata);
  if (!body) throw new Error(`the error carries no svc-error-bin metadata: ${String(err)}`);
  return body;
}

/** Runs `fn` and returns the gRPC error it must fail with. */
export async function grpcFailure(fn: () => Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await fn();
  } catch (err) {
    if (typeof (err as grpc.ServiceError).code === 'number') return err as grpc.ServiceError;
    throw err;
  }
  throw new Error('the call succeeded; it was expected to fail');
}

export interface GrpcTestServer {
  http: TestServer;
  grpc: RunningGrpcServer;
  clients: SvcClients;
  close(): Promise<void>;
}

export async function startGrpcTestServer(options: StartOptions = {}): Promise<GrpcTestServer> {
  const http = await startTestServer(options);
  const server = await startGrpcServer(http.app, { host: '127.0.0.1', port: 0, shutdownGraceMs: 2000 });
  const clients = clientsFor(`127.0.0.1:${server.port}`);
  return {
    http,
    grpc: server,
    clients,
    async close() {
      for (const c of Object.values(clients)) c.close();
      await server.close();
      await http.close();
    },
  };
}
