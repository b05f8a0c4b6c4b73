/**
 * A plan is stored once (docs/decisions/172): the `plan.created` event carries it, and the plan row written
 * with it points at that event instead of repeating the body. Through the real HTTP server: GET /v1/plans
 * answers the same plan as before, AI requests answered concurrently (their rows written directly) and byte
 * plans alike; rows written before the change, with a body of their own, still read back.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestServer } from '../helpers/server.ts';
import { engines } from '../helpers/engines.ts';
import { startWithMockProvider } from '../helpers/mock-provider-server.ts';

type Json = Record<string, any>;

for (const engine of engines()) {
  describe(`plans stored once on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startWithMockProvider(engine.name);
    });
    after(async () => s?.close());

    const planEvent = async (workUnitId: string): Promise<Json> => {
      const r = await s.call('POST', '/v1/ledger/query', { body: { event_types: ['plan.created'], limit: 5000 } });
      const events = ((await r.json()) as Json).events as Json[];
      const found = events.find((e) => e.work_unit_id === workUnitId);
      assert.ok(found, `plan.created for ${workUnitId}`);
      return found;
    };

    test('AI requests answered together store each plan once and GET /v1/plans returns it whole', async () => {
      // 16 in flight: some commits hold more than 4 record units (rows straight into their tables), others are journalled.
      const answers = await Promise.all(
        Array.from({ length: 16 }, (_, i) => s.call('POST', '/v1/chat/completions', { body: { model: 'mock-small', messages: [{ role: 'user', content: `plan once ${engine.name} ${i}` }] } })),
      );
      const workUnits = answers.map((r) => {
        assert.equal(r.status, 200);
        return r.headers.get('x-svc-work-unit-id')!;
      });
      for (const workUnitId of workUnits) {
        const listed = (await (await s.call('GET', `/v1/plans?work_unit_id=${workUnitId}`)).json()) as Json;
        assert.equal(listed.plans.length, 1);
        const plan = listed.plans[0];
        const event = await planEvent(workUnitId);
        // The event keeps everything it held (the gateway's own actions and route); the plan read back is the event's plan without them.
        const { ai_actions, route, ...fromEvent } = event.payload.plan;
        assert.ok(Array.isArray(ai_actions) && typeof route === 'string');
        assert.deepEqual(plan, fromEvent);
        assert.deepEqual((await (await s.call('GET', `/v1/plans/${plan.plan_id}`)).json()), plan);
        assert.equal(plan.work_unit_id, workUnitId);
        assert.equal(plan.kind, 'prompt_request');
      }
      const rows = await s.app.store.db.all<{ body: string; body_event_id: string | null }>(
        `SELECT body, body_event_id FROM plans WHERE work_unit_id IN (${workUnits.map((_, i) => `$${i + 1}`).join(', ')})`,
        workUnits,
      );
      assert.equal(rows.length, 16);
      // Also the rows that went through the record journal (decision 141): the move writes them without a body.
      for (const r of rows) {
        assert.equal(r.body, '');
        assert.match(r.body_event_id!, /^evt_/);
      }
    });

    test('a byte plan is stored once too, and a row with its own body still reads back', async () => {
      const res = await s.call('POST', '/v1/plans', { body: { kind: 'byte_object', logical_ref: 's3://b/once', payload: { _svc_encoding: 'base64', data: Buffer.from('once').toString('base64') } } });
      assert.equal(res.status, 201, await res.clone().text());
      const plan = (await res.json()) as Json;
      const row = await s.app.store.db.get<{ body: string; body_event_id: string }>('SELECT body, body_event_id FROM plans WHERE id = $1', [plan.plan_id]);
      assert.equal(row!.body, '');
      const event = await planEvent(plan.work_unit_id);
      assert.equal(row!.body_event_id, event.id);
      assert.deepEqual(event.payload.plan, plan);
      assert.deepEqual(await (await s.call('GET', `/v1/plans/${plan.plan_id}`)).json(), plan);

      // A row written before this change: body of its own, no event reference.
      await s.app.store.db.run('UPDATE plans SET body = $1, body_event_id = NULL WHERE id = $2', [JSON.stringify({ ...plan, risk: 'medium' }), plan.plan_id]);
      assert.equal(((await (await s.call('GET', `/v1/plans/${plan.plan_id}`)).json()) as Json).risk, 'medium');
    });
  });
}
