/** What every domain call receives about the request it serves. */
import type { Principal } from './auth/principal.ts';

export interface RequestContext {
  readonly principal: Principal;
  /** Trace id of the request (`X-SVC-Trace-ID`), recorded in plans, manifests and ledger events. */
  readonly traceId: string;
  /**
   * A signed approval the caller presented (`X-SVC-Approval` header, gRPC
   * metadata). Checked only where a plan carries `requires_approval`.
   */
  readonly approvalToken?: string | undefined;
}
