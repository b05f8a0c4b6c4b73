/**
 * LedgerService through a real gRPC client, on SQLite and PostgreSQL: query
 * with filters, chain verification, and the live stream — resumed after a
 * sequence number, woken by new appends, ended cleanly when the server closes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { engines } from '../helpers/engines.ts';
import { KEYS } from '../helpers/server.ts';
import { type GrpcTestServer, errorBodyFrom, grpcFailure, openStream, readStream, startGrpcTestServer, unary, withKey } from './support/grpc-test-server.ts';

type Any = Record<string, any>;

for (const engine of engines()) {
  describe(`gRPC ledger on ${engine.name}`, { skip: engine.skip }, () => {
    let s: GrpcTestServer;
    before(async () => {
      s = await startGrpcTestServer({ engine: engine.name });
    });
    after(async () => s?.close());

    const createUnit = async (ref: string): Promise<string> =>
      (await unary<Any, Any>(s.clients.workUnits, 'Create', { work_unit: { kind: 'WORK_UNIT_KIND_BYTE_OBJECT', logical_ref: ref, payload: { data: Buffer.from(ref) } } }, withKey(KEYS.acmeWriter))).response
        .work_unit.work_unit_id;
    const headSeq = async (): Promise<number> => {
      let after = 0;
      for (;;) {
        const page = (await unary<Any, Any>(s.clients.ledger, 'Query', { after_seq: after, limit: 5000 }, withKey(KEYS.auditor))).response;
        const events = page.events ?? [];
        if (events.length > 0) after = events[events.length - 1].seq;
        if (page.next_after_seq === undefined) return after;
      }
    };

    test('query filters by tenant and event type, and events carry their payload as a Struct', async () => {
      const id = await createUnit('s3://ledger/query');
      const events = (await unary<Any, Any>(s.clients.ledger, 'Query', { tenant: 'acme', event_types: ['work_unit.created'] }, withKey(KEYS.auditor))).response.events;
      const mine = events.find((e: Any) => e.work_unit_id === id);
      assert.ok(mine, 'the creation event is found');
      assert.deepEqual([mine.type, mine.tenant, mine.actor], ['work_unit.created', 'acme', 'acme-writer']);
      assert.match(mine.id, /^evt_/);
      assert.match(mine.hash, /^[0-9a-f]{64}$/);
      assert.ok(events.every((e: Any) => e.type === 'work_unit.created' && e.tenant === 'acme'));
      assert.equal(typeof mine.payload.fields, 'object');
    });

    test('a principal without ledger:read is PERMISSION_DENIED', async () => {
      const err = await grpcFailure(() => unary(s.clients.ledger, 'Query', {}, withKey(KEYS.acmeWriter)));
      assert.equal(err.code, grpc.status.PERMISSION_DENIED);
      assert.equal(errorBodyFrom(err).error.code, 'forbidden');
    });

    test('a malformed time bound is INVALID_ARGUMENT', async () => {
      const err = await grpcFailure(() => unary(s.clients.ledger, 'Query', { from: 'yesterday' }, withKey(KEYS.auditor)));
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
    });

    test('verify checks the whole chain', async () => {
      const { result } = (await unary<Any, Any>(s.clients.ledger, 'Verify', {}, withKey(KEYS.auditor))).response;
      assert.equal(result.ok, true);
      assert.equal(result.checked, await headSeq());
      assert.match(result.head_hash, /^[0-9a-f]{64}$/);
      assert.equal(result.first_break, undefined);
    });

    test('a stream replays the events after after_seq in order, and resumes after the last one it delivered', async () => {
      const start = await headSeq();
      const ids = [await createUnit('s3://ledger/s1'), await createUnit('s3://ledger/s2'), await createUnit('s3://ledger/s3')];
      const first = openStream<Any, Any>(s.clients.ledger, 'Stream', { after_seq: start, event_types: ['work_unit.created'] }, withKey(KEYS.auditor));
      const got = (await first.waitFor(3)).map((m) => m.event);
      first.cancel();
      assert.deepEqual(got.map((e: Any) => e.work_unit_id), ids);
      assert.ok(got.every((e: Any, i: number) => e.seq > start && (i === 0 || e.seq > got[i - 1].seq)));

      const resumed = openStream<Any, Any>(s.clients.ledger, 'Stream', { after_seq: got[1].seq, event_types: ['work_unit.created'] }, withKey(KEYS.auditor));
      const [next] = await resumed.waitFor(1);
      resumed.cancel();
      assert.equal(next?.event.seq, got[2].seq);
      assert.equal(next?.event.work_unit_id, ids[2]);
    });

    test('a stream delivers events appended while it is open', async () => {
      const live = openStream<Any, Any>(s.clients.ledger, 'Stream', { after_seq: await headSeq(), tenant: 'acme', event_types: ['work_unit.created'] }, withKey(KEYS.auditor));
      const id = await createUnit('s3://ledger/live');
      const [m] = await live.waitFor(1);
      live.cancel();
      assert.equal(m?.event.work_unit_id, id);
    });

    test('without after_seq a stream starts at new events and replays nothing older', async () => {
      const before = await headSeq();
      const live = openStream<Any, Any>(s.clients.ledger, 'Stream', { event_types: ['work_unit.created'] }, withKey(KEYS.auditor));
      // The stream's starting point is read when the call starts; keep appending until one arrives.
      for (let i = 0; i < 20 && live.received.length === 0; i++) {
        await createUnit(`s3://ledger/new-${i}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const [m] = await live.waitFor(1);
      live.cancel();
      assert.ok(m?.event.seq > before, 'the first event is newer than the head when the stream was opened');
    });

    test('a tenant-bound principal cannot stream another tenant', async () => {
      const { error, messages } = await readStream<Any, Any>(s.clients.ledger, 'Stream', { tenant: 'globex' }, withKey(KEYS.acmeReader));
      assert.equal(messages.length, 0);
      assert.equal(error?.code, grpc.status.PERMISSION_DENIED);
    });

    test('closing the server ends an open stream with OK instead of leaving it hanging', async () => {
      const own = await startGrpcTestServer({ engine: engine.name });
      try {
        const ended = readStream<Any, Any>(own.clients.ledger, 'Stream', { after_seq: 0 }, withKey(KEYS.auditor));
        await new Promise((r) => setTimeout(r, 200));
        const started = Date.now();
        await own.grpc.close();
        const { error } = await ended;
        assert.equal(error, undefined);
        assert.ok(Date.now() - started < 1500, 'close did not wait for the shutdown grace period');
      } finally {
        await own.close();
      }
    });
  });
}
