/**
 * `GET /v1/admin/alerts` through the real server, with real provocations:
 * a legal-hold deletion attempt, a corrupted chunk, a verifier failure with
 * no fallback. Each critical alert fires, is written to the ledger once as
 * `alert.fired`, and is quiet before it is provoked. Also legal holds
 * themselves: placing, refusing a delete, releasing, permissions.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS, startTestServer } from '../helpers/server.ts';
import { type Seeded, put, startSeeded } from '../reports/support.ts';
import { flipStoredByte } from '../helpers/chunk-damage.ts';

type Json = any;

for (const engine of engines()) {
  describe(`alerts over HTTP (${engine.name})`, { skip: engine.skip }, () => {
    let s: Seeded;
    const alerts = async (): Promise<Record<string, Json>> => {
      const r = await s.svc.call('GET', '/v1/admin/alerts');
      assert.equal(r.status, 200);
      const body = (await r.json()) as Json;
      return Object.fromEntries(body.alerts.map((a: Json) => [a.name, a]));
    };
    const ledger = async (types: string[]): Promise<Json[]> => {
      const r = await s.svc.call('POST', '/v1/ledger/query', { body: { event_types: types } });
      return ((await r.json()) as Json).events;
    };

    before(async () => {
      s = await startSeeded(engine.name);
    });
    after(async () => s?.close());

    test('a fresh service has all 15 alerts quiet; reading them needs metrics:read', async () => {
      const all = await alerts();
      assert.equal(Object.keys(all).length, 15);
      for (const a of Object.values(all)) assert.equal(a.state, 'inactive', a.name);
      assert.equal(all.SvcSchedulerMissedDeadlines.quiet_until, undefined, 'the scheduler exists: its alert can fire');
      assert.equal((await s.svc.call('GET', '/v1/admin/alerts', { key: KEYS.acmeWriter })).status, 403);
    });

    test('a legal hold refuses deletion, records it, and fires the critical alert once', async () => {
      await put(s.svc, KEYS.acmeWriter, 'evidence', 'case-7/mail.eml', randomBytes(2000));
      assert.equal((await s.svc.call('POST', '/v1/admin/legal-holds', { key: KEYS.acmeWriter, body: { scope: 'prefix', target: 'evidence/case-7/', reason: 'x' } })).status, 403, 'holds are policy: writers cannot place them');
      const placed = await s.svc.call('POST', '/v1/admin/legal-holds', { key: KEYS.publisher, body: { tenant: 'acme', scope: 'prefix', target: 'evidence/case-7/', reason: 'case 7 litigation' } });
      assert.equal(placed.status, 201, await placed.clone().text());
      const hold = (await placed.json()) as Json;
      assert.match(hold.id, /^lh_/);
      assert.equal((await alerts()).SvcLegalHoldDeletionAttempt.state, 'inactive');

      const del = await s.svc.call('POST', '/v1/s3/objects/delete', { body: { tenant: 'acme', bucket: 'evidence', key: 'case-7/mail.eml' } });
      assert.equal(del.status, 403);
      const err = ((await del.json()) as Json).error;
      assert.equal(err.code, 'policy_denied');
      assert.match(err.message, new RegExp(`legal hold ${hold.id}`));
      const blocked = await ledger(['legal_hold.deletion_blocked']);
      assert.equal(blocked.length, 1);
      assert.equal(blocked[0].payload.legal_hold_id, hold.id);

      const fired = await alerts();
      assert.equal(fired.SvcLegalHoldDeletionAttempt.state, 'firing');
      await alerts();
      const events = (await ledger(['alert.fired'])).filter((e) => e.payload.alert === 'SvcLegalHoldDeletionAttempt');
      assert.equal(events.length, 1, 'one alert.fired however often it is evaluated');

      const listed = ((await (await s.svc.call('GET', '/v1/admin/legal-holds?tenant=acme')).json()) as Json).legal_holds;
      assert.deepEqual(listed.map((h: Json) => h.id), [hold.id]);
      const released = await s.svc.call('POST', `/v1/admin/legal-holds/${hold.id}/release`, { key: KEYS.publisher });
      assert.equal(released.status, 200);
      assert.deepEqual((await ledger(['legal_hold.placed', 'legal_hold.released'])).map((e) => e.type), ['legal_hold.placed', 'legal_hold.released']);
      const again = await s.svc.call('POST', '/v1/s3/objects/delete', { body: { tenant: 'acme', bucket: 'evidence', key: 'case-7/mail.eml' } });
      const againErr = ((await again.json()) as Json).error;
      assert.doesNotMatch(againErr.message, /legal hold/, 'after release only the policy decides (delete is denied by default)');
      assert.equal((await ledger(['legal_hold.deletion_blocked'])).length, 1);
    });

    test('a corrupted chunk fails rehydration and fires SvcExactRehydrationFailure', async () => {
      assert.equal((await alerts()).SvcExactRehydrationFailure.state, 'inactive');
      const data = randomBytes(200_000);
      await put(s.svc, KEYS.acmeWriter, 'vault', 'bad.bin', data);
      const head = (await (await s.svc.call('POST', '/v1/s3/objects/head', { key: KEYS.acmeWriter, body: { bucket: 'vault', key: 'bad.bin' } })).json()) as Json;
      const manifest = (await (await s.svc.call('GET', `/v1/manifests/${head.manifest_id}`)).json()) as Json;
      const victim = manifest.chunks[0];
      await flipStoredByte(s.svc.app.objects.chunkBackend, { chunk_scope: manifest.chunk_scope, id: victim.id, codec: victim.codec }, 5);
      const r = await s.svc.call('POST', `/v1/manifests/${head.manifest_id}/rehydrate`, { body: {} });
      assert.equal(r.status, 500);
      await r.arrayBuffer();
      const a = (await alerts()).SvcExactRehydrationFailure;
      assert.equal(a.state, 'firing');
      assert.equal(a.value, 1);
      assert.ok((await ledger(['alert.fired'])).some((e) => e.payload.alert === 'SvcExactRehydrationFailure'));
    });

    test('a verifier failure with no fallback fires SvcVerifierFailureWithoutFallback', async () => {
      assert.equal((await alerts()).SvcVerifierFailureWithoutFallback.state, 'inactive');
      s.mock.setBehavior('mock-small', 'empty');
      try {
        const r = await s.svc.call('POST', '/v1/chat/completions', { key: KEYS.acmeWriter, body: { model: 'mock-small', messages: [{ role: 'user', content: 'answer nothing' }] } });
        assert.ok(r.status >= 400, `status ${r.status}`);
        await r.arrayBuffer();
      } finally {
        s.mock.setBehavior('mock-small', 'ok');
      }
      assert.equal((await alerts()).SvcVerifierFailureWithoutFallback.state, 'firing');
    });

    test('the dashboard security section counts the refused deletion; ADMIN sees the alert events', async () => {
      const r = await s.svc.call('GET', '/v1/reports/dashboard?tenant=acme', { key: ADMIN_KEY });
      const body = (await r.json()) as Json;
      assert.equal(body.sections.security.refusals['legal_hold.deletion_blocked'].value, 1);
    });
  });
}

describe('the scheduler missed-deadline alert', () => {
  test('a job whose latest start passed while the runner was not ticking becomes missed and fires SvcSchedulerMissedDeadlines', async () => {
    const s = await startTestServer({ env: { SVC_SCHEDULER_TICK_MS: '0' } });
    try {
      const state = async () => ((await (await s.call('GET', '/v1/admin/alerts')).json()) as Json).alerts.find((a: Json) => a.name === 'SvcSchedulerMissedDeadlines').state;
      assert.equal(await state(), 'inactive');
      // Latest start is one second away and nothing ticks (as during an outage); the next tick finds the job missed.
      const res = await s.call('POST', '/v1/scheduler/jobs', { key: KEYS.acmeWriter, body: { deadline: new Date(Date.now() + 601_000).toISOString(), duration_seconds: 600, zone: 'DE', mode: 'observe' } });
      assert.equal(res.status, 201, await res.clone().text());
      await new Promise((r) => setTimeout(r, 1_500));
      const { missed } = await s.app.scheduler.tick(100);
      assert.equal(missed.length, 1);
      assert.equal(await state(), 'firing');
    } finally {
      await s.close();
    }
  });
});
