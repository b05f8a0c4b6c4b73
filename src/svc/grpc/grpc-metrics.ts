/**
 * gRPC request metrics, registered on the app's own registry (so `/metrics`
 * and ObservabilityService.Metrics show them): requests by method and status
 * code, latency by method. Registration is idempotent because tests start
 * more than one gRPC server on one app.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

export interface GrpcMetrics {
  requests: Counter<'method' | 'code'>;
  seconds: Histogram<'method'>;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

export function grpcMetrics(registry: Registry): GrpcMetrics {
  const requests =
    (registry.getSingleMetric('svc_grpc_requests_total') as Counter<'method' | 'code'> | undefined) ??
    new Counter({ name: 'svc_grpc_requests_total', help: 'gRPC calls, by method and status code.', labelNames: ['method', 'code'], registers: [registry] });
  const seconds =
    (registry.getSingleMetric('svc_grpc_request_seconds') as Histogram<'method'> | undefined) ??
    new Histogram({ name: 'svc_grpc_request_seconds', help: 'gRPC call latency (streams: until the last message), by method.', labelNames: ['method'], buckets: LATENCY_BUCKETS, registers: [registry] });
  return { requests, seconds };
}
