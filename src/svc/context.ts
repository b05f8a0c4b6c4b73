/** What every domain call receives about the request it serves. */
import type { Principal } from './auth/principal.ts';

/**
 * What the domain learns about a request while serving it, for the adapter's
 * one operational log line (the tenant it acted on, once resolved). A plain
 * mutable bag the adapter creates per request; absent in CLI one-shots.
 */
export interface RequestFacts {
  tenant?: string | undefined;
}

export interface RequestContext {
  readonly principal: Principal;
  /** Trace id of the request (`X-SVC-Trace-ID`), recorded in plans, manifests and ledger events. */
  readonly traceId: string;
  /**
   * A signed approval the caller presented (`X-SVC-Approval` header, gRPC
   * metadata). Checked only where a plan carries `requires_approval`.
   */
  readonly approvalToken?: string | undefined;
  /** Filled by the domain (TenantGuard) for the request's log line. */
  readonly facts?: RequestFacts | undefined;
}
