/**
 * Work units and plans through the real HTTP server: validation, planning,
 * persistence, ledger events and headers.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type TestServer, startTestServer } from '../helpers/server.ts';
import { engines } from '../helpers/engines.ts';

const envelope = (bytes: Uint8Array) => ({ _svc_encoding: 'base64', data: Buffer.from(bytes).toString('base64') });

for (const engine of engines()) {
  describe(`work units and plans on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => s?.close());

    test('creating a work unit returns its id, headers and payload digest (never the payload)', async () => {
      const res = await s.call('POST', '/v1/work-units', {
        body: { kind: 'byte_object', tenant: 'acme', logical_ref: 's3://b/k', payload: envelope(Buffer.from('abc')), metadata: { owner: 'alice' } },
      });
      assert.equal(res.status, 201);
      const wu = (await res.json()) as any;
      assert.match(wu.work_unit_id, /^wu_[0-9a-z]{26}$/);
      assert.equal(res.headers.get('x-svc-work-unit-id'), wu.work_unit_id);
      assert.equal(res.headers.get('x-svc-contract'), 'exact_bytes');
      assert.equal(wu.payload.size, 3);
      assert.equal(wu.payload.sha256, 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      assert.equal(JSON.stringify(wu).includes('YWJj'), false);
      const got = (await (await s.call('GET', `/v1/work-units/${wu.work_unit_id}`)).json()) as any;
      assert.equal(got.state, 'created');
      assert.deepEqual(got.metadata, { owner: 'alice' });
      const metrics = await (await s.call('GET', '/metrics')).text();
      assert.match(metrics, /svc_work_units_total\{kind="byte_object"\} [1-9]/);
    });

    const invalid: Array<[string, unknown]> = [
      ['a logical_ref without scheme://', { kind: 'byte_object', logical_ref: 'bucket/key', payload: envelope(Buffer.from('x')) }],
      ['invalid base64', { kind: 'byte_object', logical_ref: 's3://b/k', payload: { _svc_encoding: 'base64', data: 'not base64!' } }],
      ['an unknown kind', { kind: 'video', logical_ref: 's3://b/k' }],
      ['an unknown field', { kind: 'byte_object', logical_ref: 's3://b/k', payload: envelope(Buffer.from('x')), colour: 'red' }],
      ['a byte_object without payload', { kind: 'byte_object', logical_ref: 's3://b/k' }],
      ['a prompt_request without messages', { kind: 'prompt_request', logical_ref: 'prompt://x', payload: { text: 'hi' } }],
      ['non-string metadata', { kind: 'byte_object', logical_ref: 's3://b/k', payload: envelope(Buffer.from('x')), metadata: { n: 1 } }],
    ];
    for (const [what, body] of invalid) {
      test(`${what} is rejected with invalid_work_unit and nothing is stored`, async () => {
        const before = (await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['work_unit.created'], limit: 5000 } })).json()) as any;
        const res = await s.call('POST', '/v1/work-units', { body });
        assert.equal(res.status, 400);
        const err = ((await res.json()) as any).error;
        assert.equal(err.code, 'invalid_work_unit');
        assert.equal(err.retryable, false);
        const afterEvents = (await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['work_unit.created'], limit: 5000 } })).json()) as any;
        assert.equal(afterEvents.events.length, before.events.length);
      });
    }

    test('malformed JSON is a clear 400 with the error body', async () => {
      const res = await s.call('POST', '/v1/work-units', { body: '{"kind":' });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as any).error.code, 'invalid_request');
    });

    test('a body over the configured limit is 413 payload_too_large', async () => {
      const small = await startTestServer({ engine: engine.name, overrides: { 'server.body_limit_bytes': 2048 } });
      try {
        const res = await small.call('POST', '/v1/work-units', { body: { kind: 'byte_object', logical_ref: 's3://b/k', payload: envelope(randomBytes(4096)) } });
        assert.equal(res.status, 413);
        assert.equal(((await res.json()) as any).error.code, 'payload_too_large');
      } finally {
        await small.close();
      }
    });

    test('planning a byte_object under exact_bytes lists hash, chunking and zstd with a sampled estimate', async () => {
      const compressible = Buffer.from('log line 42: everything is fine\n'.repeat(4000));
      const res = await s.call('POST', '/v1/work-units/plan', { body: { kind: 'byte_object', logical_ref: 's3://logs/a.log', payload: envelope(compressible) } });
      assert.equal(res.status, 200);
      const plan = (await res.json()) as any;
      assert.match(plan.plan_id, /^pl_/);
      assert.equal(plan.contract, 'exact_bytes');
      const types = plan.actions.map((a: any) => a.type);
      for (const t of ['hash', 'content_defined_chunk', 'zstd']) assert.ok(types.includes(t), t);
      for (const a of plan.actions) {
        assert.equal(typeof a.required, 'boolean');
        assert.equal(a.risk, 'low');
      }
      assert.ok(plan.expected.stored_bytes_reduction > 0.5, `compressible text should save a lot, got ${plan.expected.stored_bytes_reduction}`);
      assert.equal(res.headers.get('x-svc-policy-bundle'), plan.policy_bundle_id);
      assert.equal(res.headers.get('x-svc-work-unit-id'), plan.work_unit_id);

      const random = await s.call('POST', '/v1/work-units/plan', { body: { kind: 'byte_object', logical_ref: 's3://bin/r', payload: envelope(randomBytes(200_000)) } });
      const randomPlan = (await random.json()) as any;
      assert.ok(randomPlan.expected.stored_bytes_reduction < 0.05, `random bytes should not compress, got ${randomPlan.expected.stored_bytes_reduction}`);
    });

    test('every planning call persists the plan and writes plan.created with ids and the plan', async () => {
      const created = (await (await s.call('POST', '/v1/work-units', { body: { kind: 'byte_object', logical_ref: 's3://b/p', payload: envelope(Buffer.from('p')) } })).json()) as any;
      const res = await s.call('POST', `/v1/work-units/${created.work_unit_id}/plan`, { body: { mode: 'observe' } });
      const plan = (await res.json()) as any;
      assert.equal(plan.mode, 'observe');
      assert.equal(res.headers.get('x-svc-mode'), 'observe');
      assert.deepEqual(await (await s.call('GET', `/v1/plans/${plan.plan_id}`)).json(), plan);
      const viaPlans = await s.call('POST', '/v1/plans', { body: { kind: 'byte_object', logical_ref: 's3://b/q', payload: envelope(Buffer.from('q')) } });
      assert.equal(viaPlans.status, 201);
      const events = (await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['plan.created'], limit: 5000 } })).json()) as any;
      const mine = events.events.find((e: any) => e.work_unit_id === created.work_unit_id);
      assert.ok(mine, 'plan.created for the work unit');
      assert.equal(mine.payload.work_unit_id, created.work_unit_id);
      assert.equal(mine.payload.policy_bundle_id, plan.policy_bundle_id);
      assert.equal(mine.payload.trace_id, res.headers.get('x-svc-trace-id'));
      assert.deepEqual(mine.payload.plan, plan);
      const wu = (await (await s.call('GET', `/v1/work-units/${created.work_unit_id}`)).json()) as any;
      assert.equal(wu.state, 'planned');
      assert.equal(wu.last_plan_id, plan.plan_id);
    });

    test('a semantic transform under exact_bytes is denied, not retryable, and audited', async () => {
      const res = await s.call('POST', '/v1/work-units/plan', {
        body: { kind: 'byte_object', logical_ref: 's3://b/doc', payload: envelope(Buffer.from('doc')), transforms: ['semantic_summary'] },
      });
      assert.equal(res.status, 403);
      const err = ((await res.json()) as any).error;
      assert.equal(err.code, 'policy_denied');
      assert.equal(err.retryable, false);
      assert.match(err.message, /semantic_summary/);
      assert.match(err.message, /exact_bytes/);
      assert.ok(err.work_unit_id);
      assert.ok(err.policy_bundle_id);
      const events = (await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['policy.transform.denied'] } })).json()) as any;
      assert.ok(events.events.some((e: any) => e.work_unit_id === err.work_unit_id && e.payload.action === 'semantic_summary' && e.payload.enforced === true));
    });

    test('plans list with a cursor', async () => {
      for (let i = 0; i < 3; i++) await s.call('POST', '/v1/plans', { body: { kind: 'byte_object', tenant: 'pager', logical_ref: 's3://b/x', payload: envelope(Buffer.from(`x${i}`)) } });
      const first = (await (await s.call('GET', '/v1/plans?tenant=pager&limit=2')).json()) as any;
      assert.equal(first.plans.length, 2);
      assert.ok(first.next_cursor);
      const second = (await (await s.call('GET', `/v1/plans?tenant=pager&limit=2&after=${first.next_cursor}`)).json()) as any;
      assert.equal(second.plans.length, 1);
      assert.equal(second.next_cursor, null);
    });

    test('the ledger stream sends events as SSE and resumes after Last-Event-ID', async () => {
      const head = (await (await s.call('POST', '/v1/ledger/query', { body: { limit: 5000 } })).json()) as any;
      const lastSeq = head.events.at(-1).seq;
      await s.call('POST', '/v1/work-units', { body: { kind: 'byte_object', tenant: 'sse', logical_ref: 's3://b/sse', payload: envelope(Buffer.from('s')) } });
      const controller = new AbortController();
      const res = await s.call('GET', '/v1/ledger/stream?tenant=sse', { headers: { 'last-event-id': String(lastSeq) } });
      assert.equal(res.headers.get('content-type')?.startsWith('text/event-stream'), true);
      const reader = res.body!.getReader();
      let text = '';
      while (!text.includes('event: work_unit.created')) text += new TextDecoder().decode((await reader.read()).value);
      await reader.cancel();
      controller.abort();
      assert.match(text, /^id: \d+$/m);
      assert.match(text, /"tenant":"sse"/);
    });
  });
}

describe('rollout decides the plan', () => {
  test('bypass_optimisation plans observe mode without dedupe or zstd; force_exact_contract overrides semantic', async () => {
    const s = await startTestServer();
    try {
      const body = { kind: 'byte_object', logical_ref: 's3://b/r', payload: envelope(Buffer.from('r'.repeat(1000))) };
      const normal = (await (await s.call('POST', '/v1/work-units/plan', { body })).json()) as any;
      assert.equal(normal.mode, 'enforce');
      assert.ok(normal.actions.some((a: any) => a.type === 'zstd'));

      const on = await s.call('POST', '/v1/admin/switches', { body: { switch: 'bypass_optimisation', enabled: true } });
      assert.equal(on.status, 200, await on.text());
      const bypassed = (await (await s.call('POST', '/v1/work-units/plan', { body })).json()) as any;
      assert.equal(bypassed.mode, 'observe');
      assert.deepEqual(bypassed.actions.map((a: any) => a.type), ['hash', 'content_defined_chunk']);
      assert.ok(bypassed.rollout.reasons.some((r: string) => r.includes('bypass_optimisation')));
      await s.call('POST', '/v1/admin/switches', { body: { switch: 'bypass_optimisation', enabled: false } });

      await s.call('POST', '/v1/admin/switches', { body: { switch: 'disable_reducer', name: 'zstd', disabled: true } });
      const noZstd = (await (await s.call('POST', '/v1/work-units/plan', { body })).json()) as any;
      assert.equal(noZstd.actions.some((a: any) => a.type === 'zstd'), false);
      assert.ok(noZstd.actions.some((a: any) => a.type === 'dedupe'));
      assert.deepEqual(noZstd.denied_actions.find((d: any) => d.type === 'zstd').reasons, ["rollout: reducer 'zstd' is switched off (disable_reducer)"]);
      await s.call('POST', '/v1/admin/switches', { body: { switch: 'disable_reducer', name: 'zstd', disabled: false } });

      await s.call('POST', '/v1/admin/switches', { body: { switch: 'force_exact_contract', enabled: true } });
      const forced = (await (await s.call('POST', '/v1/work-units/plan', {
        body: { kind: 'prompt_request', logical_ref: 'prompt://x', requested_contract: 'semantic', payload: { messages: [{ role: 'user', content: 'hi' }] } },
      })).json()) as any;
      assert.equal(forced.contract, 'exact_bytes');
      assert.equal(forced.actions.some((a: any) => a.class === 'semantic'), false);
    } finally {
      await s.close();
    }
  });
});
