/** An `AuditSink` that keeps events in memory so tests can assert what was written to the ledger. */
import type { AuditEvent, AuditSink } from '../../../src/svc/policy/audit-event.ts';

export class AuditRecorder implements AuditSink {
  readonly events: AuditEvent[] = [];

  async append(event: AuditEvent): Promise<AuditEvent> {
    this.events.push(event);
    return event;
  }

  ofType(type: string): AuditEvent[] {
    return this.events.filter((e) => e.type === type);
  }
}
