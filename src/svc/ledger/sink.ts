/**
 * The narrow port domain services write audit events through. In the
 * composed service it is the hash-chained ledger (`app.ledger`); tests pass a
 * recorder. Keeping the dependency this narrow keeps domains free of storage.
 */

export interface AuditEvent {
  type: string;
  tenant: string;
  /** Always the authenticated principal's actor, never a request field. */
  actor: string;
  work_unit_id?: string;
  policy_bundle_id?: string;
  trace_id?: string;
  payload: Record<string, unknown>;
}

export interface AuditSink {
  append(event: AuditEvent): Promise<unknown>;
}
