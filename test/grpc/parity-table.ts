/**
 * REST ↔ gRPC parity table: every operation the HTTP server serves in its
 * OpenAPI document (`METHOD path`, as in /openapi.json) names the gRPC method
 * that calls the same domain function, or an exception with its reason.
 * test/grpc/parity.test.ts fails when a served operation is missing here,
 * when an entry names a method the server does not serve, or when an entry
 * is left for an operation that no longer exists. docs/grpc.md renders the
 * exceptions.
 */
export type ParityEntry = { grpc: string } | { exception: string };

export const PARITY: Record<string, ParityEntry> = {
  'GET /healthz': { grpc: 'grpc.health.v1.Health/Check' },
  'GET /readyz': { grpc: 'grpc.health.v1.Health/Check' },
  'GET /metrics': { grpc: 'svc.v1.ObservabilityService/Metrics' },

  'POST /v1/work-units': { grpc: 'svc.v1.WorkUnitService/Create' },
  'GET /v1/work-units': { grpc: 'svc.v1.WorkUnitService/ListWorkUnits' },
  'GET /v1/work-units/{id}': { grpc: 'svc.v1.WorkUnitService/Get' },
  'POST /v1/work-units/{id}/plan': { grpc: 'svc.v1.WorkUnitService/Plan' },
  'POST /v1/work-units/plan': { grpc: 'svc.v1.WorkUnitService/PlanInline' },
  'POST /v1/work-units/{id}/execute': { grpc: 'svc.v1.WorkUnitService/Execute' },
  'POST /v1/work-units/execute': { grpc: 'svc.v1.WorkUnitService/ExecuteInline' },
  // The raw byte routes (decision 112) exist because JSON needs base64; protobuf `bytes` do not, so each maps to the
  // RPC that already carries the same bytes: ExecuteInline's binary payload, Put's `body_base64` (raw bytes on the
  // wire, up to the message limit), and UploadPart, which streams a part in `data` messages.
  'POST /v1/work-units/execute/raw': { grpc: 'svc.v1.WorkUnitService/ExecuteInline' },

  // POST /v1/plans is the same domain call as POST /v1/work-units/plan (planInline).
  'POST /v1/plans': { grpc: 'svc.v1.WorkUnitService/PlanInline' },
  'GET /v1/plans': { grpc: 'svc.v1.PlanService/List' },
  'GET /v1/plans/{id}': { grpc: 'svc.v1.PlanService/Get' },

  'POST /v1/ledger/query': { grpc: 'svc.v1.LedgerService/Query' },
  'POST /v1/ledger/verify': { grpc: 'svc.v1.LedgerService/Verify' },
  'GET /v1/ledger/stream': { grpc: 'svc.v1.LedgerService/Stream' },
  'POST /v1/logs/query': { grpc: 'svc.v1.ObservabilityService/QueryLogs' },

  'POST /v1/policies/validate': { grpc: 'svc.v1.PolicyService/Validate' },
  'POST /v1/policies/evaluate': { grpc: 'svc.v1.PolicyService/Evaluate' },
  'GET /v1/policies/bundles': { grpc: 'svc.v1.PolicyService/ListBundles' },
  'GET /v1/policies/bundles/{name}': { grpc: 'svc.v1.PolicyService/GetBundle' },
  'POST /v1/policies/bundles/{name}/publish': { grpc: 'svc.v1.PolicyService/PublishBundle' },
  'POST /v1/policies/bundles/{name}/reload': { grpc: 'svc.v1.PolicyService/ReloadBundle' },

  'GET /v1/approvals/public-key': { grpc: 'svc.v1.ApprovalService/GetPublicKey' },
  'POST /v1/approvals': { grpc: 'svc.v1.ApprovalService/Issue' },
  'GET /v1/approvals': { grpc: 'svc.v1.ApprovalService/List' },
  'GET /v1/approvals/{id}': { grpc: 'svc.v1.ApprovalService/Get' },
  'POST /v1/approvals/{id}/revoke': { grpc: 'svc.v1.ApprovalService/Revoke' },
  'POST /v1/approvals/redeem': { grpc: 'svc.v1.ApprovalService/Redeem' },

  'POST /v1/scheduler/jobs': { grpc: 'svc.v1.SchedulerService/SubmitJob' },
  'GET /v1/scheduler/jobs': { grpc: 'svc.v1.SchedulerService/ListJobs' },
  'POST /v1/scheduler/plan': { grpc: 'svc.v1.SchedulerService/PreviewPlan' },
  'GET /v1/scheduler/jobs/{id}': { grpc: 'svc.v1.SchedulerService/GetJob' },
  'POST /v1/scheduler/jobs/{id}/cancel': { grpc: 'svc.v1.SchedulerService/CancelJob' },
  'POST /v1/scheduler/jobs/{id}/complete': { grpc: 'svc.v1.SchedulerService/CompleteJob' },
  'POST /v1/scheduler/forecasts/pull': { grpc: 'svc.v1.SchedulerService/PullForecasts' },
  'POST /v1/scheduler/forecasts/reload': { grpc: 'svc.v1.SchedulerService/ReloadForecasts' },
  'POST /v1/scheduler/forecasts': { grpc: 'svc.v1.SchedulerService/LoadForecast' },

  'GET /v1/benchmarks': { grpc: 'svc.v1.BenchmarkService/ListSuites' },
  'POST /v1/benchmarks/runs': { grpc: 'svc.v1.BenchmarkService/StartRun' },
  'GET /v1/benchmarks/runs': { grpc: 'svc.v1.BenchmarkService/ListRuns' },
  'GET /v1/benchmarks/runs/{id}': { grpc: 'svc.v1.BenchmarkService/GetRun' },
  'GET /v1/benchmarks/runs/{id}/results': { grpc: 'svc.v1.BenchmarkService/GetRunResults' },

  'GET /v1/admin/switches': { grpc: 'svc.v1.AdminService/GetSwitches' },
  'POST /v1/admin/switches': { grpc: 'svc.v1.AdminService/ChangeSwitch' },
  'POST /v1/admin/restore-tests': { grpc: 'svc.v1.AdminService/RunRestoreTest' },
  'POST /v1/admin/gc': { grpc: 'svc.v1.AdminService/RunGc' },
  'POST /v1/admin/chunks/migrate': { grpc: 'svc.v1.AdminService/MigrateChunks' },

  'GET /v1/adapters': { grpc: 'svc.v1.AdapterService/ListAdapters' },
  'GET /v1/adapters/{name}': { grpc: 'svc.v1.AdapterService/GetAdapter' },
  'POST /v1/adapters/lakehouse/tables': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/lakehouse/tables/list': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/lakehouse/tables/versions': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/lakehouse/duplicates': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/stream/append': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/stream/read': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/stream/streams/list': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/stream/unused': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/training/checkpoints': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/training/checkpoints/list': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/training/runs/submit': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/training/runs/complete': { grpc: 'svc.v1.AdapterService/Call' },
  'POST /v1/adapters/{name}/{operation}': { grpc: 'svc.v1.AdapterService/Call' },

  'GET /v1/plugins': { grpc: 'svc.v1.PluginService/ListPlugins' },
  'GET /v1/plugins/{id}': { grpc: 'svc.v1.PluginService/GetPlugin' },
  'POST /v1/plugins': { grpc: 'svc.v1.PluginService/InstallPlugin' },
  'POST /v1/plugins/{id}/enable': { grpc: 'svc.v1.PluginService/EnablePlugin' },
  'POST /v1/plugins/{id}/disable': { grpc: 'svc.v1.PluginService/DisablePlugin' },
  'GET /v1/admin/alerts': { grpc: 'svc.v1.AdminService/ListAlerts' },
  'GET /v1/admin/legal-holds': { grpc: 'svc.v1.AdminService/ListLegalHolds' },
  'POST /v1/admin/legal-holds': { grpc: 'svc.v1.AdminService/PlaceLegalHold' },
  'POST /v1/admin/legal-holds/{id}/release': { grpc: 'svc.v1.AdminService/ReleaseLegalHold' },
  'GET /v1/admin/readiness': { grpc: 'svc.v1.AdminService/Readiness' },

  'POST /v1/chat/completions': { grpc: 'svc.v1.AIService/ChatCompletion' },
  'POST /v1/completions': { grpc: 'svc.v1.AIService/Completion' },
  'POST /v1/embeddings': { grpc: 'svc.v1.AIService/Embeddings' },
  'GET /v1/models': { grpc: 'svc.v1.AIService/ListModels' },
  'GET /v1/conformance/ai': {
    exception: 'a self-check of the HTTP OpenAI-compatible surface itself (it replays requests through the HTTP server); the gRPC AIService is held to the same gateway by test/grpc/parity.test.ts',
  },

  'POST /v1/cache/store': { grpc: 'svc.v1.CacheService/Store' },
  'POST /v1/cache/exact/lookup': { grpc: 'svc.v1.CacheService/ExactLookup' },
  'POST /v1/cache/semantic/lookup': { grpc: 'svc.v1.CacheService/SemanticLookup' },
  'POST /v1/cache/semantic/store': { grpc: 'svc.v1.CacheService/SemanticStore' },
  'POST /v1/cache/semantic/calibrate': { grpc: 'svc.v1.CacheService/SemanticCalibrate' },
  'POST /v1/cache/semantic/clear': { grpc: 'svc.v1.CacheService/SemanticClear' },

  'GET /v1/manifests': { grpc: 'svc.v1.ManifestService/List' },
  'GET /v1/manifests/explore': { grpc: 'svc.v1.ManifestService/Explore' },
  'GET /v1/manifests/{id}': { grpc: 'svc.v1.ManifestService/Get' },
  'POST /v1/manifests/{id}/rehydrate': { grpc: 'svc.v1.ManifestService/Rehydrate' },
  'POST /v1/manifests/{id}/release': { grpc: 'svc.v1.ManifestService/Release' },
  'POST /v1/manifests/export': { grpc: 'svc.v1.ManifestService/Export' },
  'POST /v1/manifests/import': { grpc: 'svc.v1.ManifestService/Import' },

  'POST /v1/s3/objects': { grpc: 'svc.v1.ObjectGatewayService/Put' },
  'PUT /v1/s3/objects': { grpc: 'svc.v1.ObjectGatewayService/Put' },
  'POST /v1/s3/objects/head': { grpc: 'svc.v1.ObjectGatewayService/Head' },
  'POST /v1/s3/objects/get': { grpc: 'svc.v1.ObjectGatewayService/Get' },
  'POST /v1/s3/objects/range': { grpc: 'svc.v1.ObjectGatewayService/Get' },
  'POST /v1/s3/objects/list': { grpc: 'svc.v1.ObjectGatewayService/List' },
  'POST /v1/s3/objects/delete': { grpc: 'svc.v1.ObjectGatewayService/Delete' },
  'POST /v1/s3/multipart/create': { grpc: 'svc.v1.ObjectGatewayService/CreateMultipartUpload' },
  'POST /v1/s3/multipart/part': { grpc: 'svc.v1.ObjectGatewayService/UploadPart' },
  'PUT /v1/s3/multipart/part': { grpc: 'svc.v1.ObjectGatewayService/UploadPart' },
  'POST /v1/s3/multipart/complete': { grpc: 'svc.v1.ObjectGatewayService/CompleteMultipartUpload' },
  'POST /v1/s3/multipart/abort': { grpc: 'svc.v1.ObjectGatewayService/AbortMultipartUpload' },

  'GET /v1/reports/dashboard': { grpc: 'svc.v1.ObservabilityService/DashboardReport' },
  'GET /v1/reports/recommendations': { grpc: 'svc.v1.ObservabilityService/Recommendations' },

  'GET /v1/platforms': { grpc: 'svc.v1.AdminService/ListPlatforms' },
  'GET /v1/platforms/matrix': { grpc: 'svc.v1.AdminService/PlatformMatrix' },
  'GET /v1/platforms/readiness': { grpc: 'svc.v1.AdminService/PlatformReadiness' },
};
