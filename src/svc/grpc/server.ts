/**
 * The gRPC surface of svc (@grpc/grpc-js over `proto/svc/v1/svc.proto`).
 * Every service is a thin adapter over the same domain services the REST
 * routes call (one file each under `services/`); authentication, error
 * mapping and metrics live in `rpc-handlers.ts`. `svc serve` starts it next
 * to HTTP; docs/grpc.md is the user guide.
 *
 * @example
 * const grpcServer = await startGrpcServer(app, { host: '127.0.0.1', port: 0 });
 * // … svc.v1.WorkUnitService/Create on 127.0.0.1:<grpcServer.port> …
 * await grpcServer.close();
 */
import * as grpc from '@grpc/grpc-js';
import type { SvcApp } from '../app.ts';
import { SvcError } from '../errors.ts';
import { grpcMetrics } from './grpc-metrics.ts';
import { loadSvcPackage } from './proto-package.ts';
import type { GrpcRuntime } from './rpc-handlers.ts';
import { adminService } from './services/admin-service.ts';
import { approvalService } from './services/approval-service.ts';
import { adapterService } from './services/adapter-service.ts';
import { pluginService } from './services/plugin-service.ts';
import { benchmarkService } from './services/benchmark-service.ts';
import { aiService } from './services/ai-service.ts';
import { cacheService } from './services/cache-service.ts';
import { ledgerService } from './services/ledger-service.ts';
import { manifestService } from './services/manifest-service.ts';
import { objectGatewayService } from './services/object-gateway-service.ts';
import { observabilityService } from './services/observability-service.ts';
import { planService } from './services/plan-service.ts';
import { policyService } from './services/policy-service.ts';
import { schedulerService } from './services/scheduler-service.ts';
import { workUnitService } from './services/work-unit-service.ts';
import { addStandardServices } from './standard/health-and-reflection.ts';

export interface GrpcServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** How long `close()` lets in-flight calls finish before cancelling them (default: `server.shutdown_grace_ms`). */
  shutdownGraceMs?: number;
}

export interface RunningGrpcServer {
  /** The bound port. */
  readonly port: number;
  /** `host:port` as bound, for logs and clients. */
  readonly address: string;
  /** Ends ledger streams, lets other calls finish within the grace period, then cancels what is left. */
  close(): Promise<void>;
}

/** `host:port`, with IPv6 literals in brackets. */
function target(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

export async function startGrpcServer(app: SvcApp, options: GrpcServerOptions): Promise<RunningGrpcServer> {
  const v1 = loadSvcPackage().svc.v1;
  const closing = new AbortController();
  const rt: GrpcRuntime = { app, metrics: grpcMetrics(app.metrics.registry), closing: closing.signal };
  // Requests may be as large as a REST JSON body (bytes fields are smaller than their base64 form). Responses are
  // not capped, as REST responses are not: a manifest of a very large object lists many chunks.
  const server = new grpc.Server({ 'grpc.max_receive_message_length': app.config.server.body_limit_bytes });

  server.addService(v1.WorkUnitService.service, workUnitService(rt));
  server.addService(v1.PlanService.service, planService(rt));
  server.addService(v1.ManifestService.service, manifestService(rt));
  server.addService(v1.LedgerService.service, ledgerService(rt));
  server.addService(v1.PolicyService.service, policyService(rt));
  server.addService(v1.CacheService.service, cacheService(rt));
  server.addService(v1.AIService.service, aiService(rt));
  server.addService(v1.ObjectGatewayService.service, objectGatewayService(rt));
  server.addService(v1.AdminService.service, adminService(rt));
  server.addService(v1.ObservabilityService.service, observabilityService(rt));
  server.addService(v1.SchedulerService.service, schedulerService(rt));
  server.addService(v1.ApprovalService.service, approvalService(rt));
  server.addService(v1.BenchmarkService.service, benchmarkService(rt));
  server.addService(v1.AdapterService.service, adapterService(rt));
  server.addService(v1.PluginService.service, pluginService(rt));
  // grpc.health.v1.Health and server reflection: what grpcurl, load balancers and probes expect.
  const standard = await addStandardServices(server, app);

  // TLS is terminated in front of svc, as for HTTP (docs/grpc.md#security); the default bind is loopback.
  const address = target(options.host, options.port);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(address, grpc.ServerCredentials.createInsecure(), (err, bound) => {
      if (!err) return resolve(bound);
      standard.shutdown();
      server.forceShutdown();
      reject(new SvcError('unavailable', `cannot listen for gRPC on ${address}: ${err.message} (set grpc.port / SVC_GRPC_PORT, or SVC_GRPC_ENABLED=false)`, { cause: err }));
    });
  });
  const graceMs = options.shutdownGraceMs ?? app.config.server.shutdown_grace_ms;
  let closed: Promise<void> | undefined;

  return {
    port,
    address: target(options.host, port),
    close() {
      closed ??= new Promise<void>((resolve) => {
        standard.shutdown();
        closing.abort();
        const force = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        force.unref();
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return closed;
    },
  };
}
