/** Reads ledger events of given types through the real API (admin key). */
import type { TestServer } from '../../helpers/server.ts';

export interface ApiLedgerEvent {
  type: string;
  tenant: string;
  actor: string;
  policy_bundle_id: string | null;
  payload: Record<string, unknown>;
}

export async function ledgerEvents(server: TestServer, types: string[]): Promise<ApiLedgerEvent[]> {
  await server.app.ledger.drained();
  const res = await server.call('POST', '/v1/ledger/query', { body: { event_types: types, limit: 1000 } });
  if (res.status !== 200) throw new Error(`ledger query failed: ${res.status}`);
  return ((await res.json()) as { events: ApiLedgerEvent[] }).events;
}
