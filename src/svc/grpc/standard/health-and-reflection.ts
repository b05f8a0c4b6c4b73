/**
 * The standard services gRPC tooling expects on any server:
 *
 * - `grpc.health.v1.Health` (npm `grpc-health-check`): `Check` and `Watch`
 *   for the whole server (service `""`) and for each `svc.v1` service. All
 *   report the readiness `/readyz` reports (storage, migrations, policy
 *   bundle, chunk store), refreshed every few seconds, and `NOT_SERVING` from
 *   the moment the server starts closing, so a load balancer stops sending
 *   calls before they are refused. Public, like `/healthz` and `/readyz`.
 * - Server reflection v1 and v1alpha (npm `@grpc/reflection`) over svc.v1 and
 *   the health service, so `grpcurl list` / `describe` / calls work without
 *   the proto file. Reflection describes the API only; every svc call still
 *   needs a credential.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { ReflectionService } from '@grpc/reflection';
import { HealthImplementation, protoPath as healthProtoPath } from 'grpc-health-check';
import type { SvcApp } from '../../app.ts';
import { checkReadiness } from '../../readiness.ts';
import { LOADER_OPTIONS, SVC_PROTO_FILE } from '../proto-package.ts';

/** How often health follows readiness (the chunk-store probe is one small request). */
const HEALTH_REFRESH_MS = 5000;

export interface StandardServices {
  /** Switches every health status to NOT_SERVING and stops following readiness. */
  shutdown(): void;
  /** Re-reads readiness now (tests, and the first answer right after start). */
  refresh(): Promise<void>;
}

/** Fully-qualified names of the svc.v1 services in the proto (what health and reflection name). */
export function svcServiceNames(): string[] {
  const def = protoLoader.loadSync(SVC_PROTO_FILE, LOADER_OPTIONS);
  return Object.entries(def)
    .filter(([, v]) => typeof v === 'object' && v !== null && !('format' in v) && Object.values(v).every((m) => typeof m === 'object' && m !== null && 'path' in m))
    .map(([name]) => name)
    .sort();
}

export async function addStandardServices(server: grpc.Server, app: SvcApp): Promise<StandardServices> {
  const names = svcServiceNames();
  const health = new HealthImplementation(Object.fromEntries(['', ...names].map((n) => [n, 'UNKNOWN' as const])));
  health.addToServer(server);

  const reflected = protoLoader.loadSync([SVC_PROTO_FILE, healthProtoPath], LOADER_OPTIONS);
  new ReflectionService(reflected).addToServer(server);

  let stopped = false;
  const set = (status: 'SERVING' | 'NOT_SERVING') => {
    for (const n of ['', ...names]) health.setStatus(n, status);
  };
  const refresh = async () => {
    let ready = false;
    try {
      ready = (await checkReadiness(app)).ready;
    } catch {
      ready = false;
    }
    if (!stopped) set(ready ? 'SERVING' : 'NOT_SERVING');
  };
  await refresh();
  const timer = setInterval(() => void refresh(), HEALTH_REFRESH_MS);
  timer.unref();
  return {
    refresh,
    shutdown() {
      stopped = true;
      clearInterval(timer);
      set('NOT_SERVING');
    },
  };
}
