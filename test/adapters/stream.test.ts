/**
 * The stream adapter through the real server, on SQLite and PostgreSQL:
 * appends store only new bytes (whether the client sends new records or the
 * whole stream again), segments round-trip bit-exact, time-range reads touch
 * only overlapping segments, segments never read back are reported as unused
 * logs; bad input, history rewrites, roles and tenants are refused.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runSvc } from '../helpers/cli.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

type Json = Record<string, any>;
const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

/** `n` records one minute apart starting at `hour`:00 on 2026-01-01. */
function events(hour: number, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) out += `${JSON.stringify({ ts: new Date(Date.UTC(2026, 0, 1, hour, i)).toISOString(), level: i % 5 === 0 ? 'warn' : 'info', msg: `request ${hour}-${i}`, latency_ms: (i * 37) % 400 })}\n`;
  return out;
}

for (const engine of engines()) {
  describe(`stream adapter on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    const append = async (body: Json, key: string = KEYS.acmeWriter) => s.call('POST', '/v1/adapters/stream/append', { key, body: { bucket: 'logs', ...body } });
    const ok = async (r: Response, status = 201) => {
      assert.equal(r.status, status, await r.clone().text());
      return (await r.json()) as Json;
    };
    const metric = async (name: string) => {
      const text = await (await s.call('GET', '/metrics')).text();
      return Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
    };

    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => {
      await s.close();
    });

    test('bad input, roles and tenants: clear 4xx, nothing stored', async () => {
      const cases: Json[] = [
        { stream: 'api', body_text: '{"ts":"2026-01-01T00:00:00Z"}' }, // no trailing newline
        { stream: 'api', body_text: 'not json\n' },
        { stream: 'api', body_text: '[1,2]\n' },
        { stream: 'api', body_text: '\n\n' },
        { stream: 'api', body_text: 'a\n', body_base64: 'YQo=' },
        { stream: 'api' },
        { stream: '../x', body_text: '{}\n' },
      ];
      for (const body of cases) {
        const r = await append(body);
        assert.equal(r.status, 400, JSON.stringify(body));
        assert.equal(((await r.json()) as Json).error.code, 'invalid_request');
      }
      assert.equal((await append({ stream: 'api', body_text: events(0, 2) }, KEYS.acmeReader)).status, 403);
      assert.equal((await append({ tenant: 'globex', stream: 'api', body_text: events(0, 2) })).status, 403);
      assert.equal((await s.app.store.manifests.page(undefined, '', 10)).length, 0);
      const read = await s.call('POST', '/v1/adapters/stream/read', { key: KEYS.acmeReader, body: { stream: 'api', from: 'yesterday' } });
      assert.equal(read.status, 400);
    });

    test('appends store only new bytes, whether the client sends new records or the whole log again', async () => {
      const h0 = events(0, 60);
      const h1 = events(1, 60);
      const h2 = events(2, 60);
      const before = await metric('svc_adapter_stream_bytes_already_stored_total');
      const first = await ok(await append({ stream: 'api/access', body_text: h0 }));
      assert.equal(first.appended.segment, 1);
      assert.equal(first.appended.records, 60);
      assert.equal(first.bytes_already_stored, 0);
      // Only the new hour.
      const second = await ok(await append({ stream: 'api/access', body_text: h1 }));
      assert.equal(second.appended.segment, 2);
      assert.equal(second.appended.offset, Buffer.byteLength(h0));
      // The whole file again, grown by one hour: only that hour is stored.
      const third = await ok(await append({ stream: 'api/access', body_base64: Buffer.from(h0 + h1 + h2).toString('base64') }));
      assert.equal(third.bytes_already_stored, Buffer.byteLength(h0 + h1));
      assert.equal(third.appended.bytes, Buffer.byteLength(h2));
      assert.equal(third.stream_bytes, Buffer.byteLength(h0 + h1 + h2));
      // The same file again: nothing new, no segment, no work unit.
      const same = await ok(await append({ stream: 'api/access', body_text: h0 + h1 + h2 }), 200);
      assert.equal(same.appended, null);
      assert.equal(same.segments, 3);
      assert.equal(await metric('svc_adapter_stream_bytes_already_stored_total'), before + Buffer.byteLength(h0 + h1) + Buffer.byteLength(h0 + h1 + h2));
      // A re-sent log that rewrites history is refused.
      const rewritten = await append({ stream: 'api/access', body_text: h0 + events(7, 60) + h2 });
      assert.equal(rewritten.status, 409);
      // Segments round-trip bit-exact.
      const seg = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeReader, body: { bucket: 'logs', key: third.appended.key } });
      assert.equal(sha(Buffer.from(await seg.arrayBuffer())), sha(h2));
    });

    test('time-range reads touch only overlapping segments; segments never read back are unused logs', async () => {
      const unusedBefore = await ok(await s.call('POST', '/v1/adapters/stream/unused', { key: KEYS.acmeReader, body: {} }), 200);
      assert.equal(unusedBefore.unused[0].stream, 'api/access');
      assert.equal(unusedBefore.unused[0].segments_never_read, 3);

      const r = await ok(await s.call('POST', '/v1/adapters/stream/read', { key: KEYS.acmeReader, body: { stream: 'api/access', from: '2026-01-01T01:10:00Z', to: '2026-01-01T01:19:59Z' } }), 200);
      assert.equal(r.records.length, 10);
      assert.equal(r.records[0].msg, 'request 1-10');
      assert.equal(r.segments_read, 1);
      assert.equal(r.segments_skipped, 2);

      // The reports' unused_logs finding lists segments never read through the gateway: not segment 2 (just
      // read by /read) nor segment 3 (fetched by a raw object get above, which the report counts as a read).
      const recs = (await (await s.call('GET', '/v1/reports/recommendations?tenant=acme')).json()) as Json;
      const logs = recs.recommendations.find((x: Json) => x.finding === 'unused_logs');
      const segments = await s.app.store.adapterRecords.ofSubject('acme', 'stream', 'stream_segment', 'api/access');
      assert.deepEqual(logs.evidence.ids, [segments[0]!.manifest_id]);
      const unusedAfter = await ok(await s.call('POST', '/v1/adapters/stream/unused', { key: KEYS.acmeReader, body: {} }), 200);
      assert.equal(unusedAfter.unused[0].segments_never_read, 2);
      assert.equal(unusedAfter.bytes_never_read, unusedBefore.bytes_never_read - Buffer.byteLength(events(1, 60)));

      const limited = await ok(await s.call('POST', '/v1/adapters/stream/read', { key: KEYS.acmeReader, body: { stream: 'api/access', limit: 5 } }), 200);
      assert.equal(limited.records.length, 5);
      assert.equal(limited.truncated, true);

      const list = await ok(await s.call('POST', '/v1/adapters/stream/streams/list', { key: KEYS.acmeReader, body: {} }), 200);
      assert.deepEqual(list.streams.map((x: Json) => [x.stream, x.segments]), [['api/access', 3]]);
      // Another tenant sees nothing and cannot name acme.
      assert.deepEqual((await ok(await s.call('POST', '/v1/adapters/stream/streams/list', { key: KEYS.globexWriter, body: {} }), 200)).streams, []);
      assert.equal((await s.call('POST', '/v1/adapters/stream/read', { key: KEYS.globexWriter, body: { stream: 'api/access' } })).status, 404);
      assert.equal((await s.call('POST', '/v1/adapters/stream/unused', { key: KEYS.globexWriter, body: { tenant: 'acme' } })).status, 403);
    });

    test('the CLI appends a log file twice (stored once) and lists unused logs', { skip: engine.name !== 'sqlite' }, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'svc-stream-cli-'));
      const file = path.join(dir, 'app.ndjson');
      writeFileSync(file, events(5, 20));
      const env = { SVC_URL: s.url, SVC_API_KEY: KEYS.acmeWriter };
      const first = await runSvc(['--json', 'adapter', 'stream', 'append', file, '--stream', 'cli/app', '--bucket', 'logs'], env);
      assert.equal(first.status, 0, first.stderr);
      assert.equal(JSON.parse(first.stdout).appended.records, 20);
      const again = await runSvc(['--json', 'adapter', 'stream', 'append', file, '--stream', 'cli/app', '--bucket', 'logs'], env);
      assert.equal(JSON.parse(again.stdout).appended, null);
      const unused = await runSvc(['--json', 'adapter', 'stream', 'unused'], env);
      assert.ok(JSON.parse(unused.stdout).unused.some((u: Json) => u.stream === 'cli/app'));
      const read = await runSvc(['--json', 'adapter', 'stream', 'read', 'cli/app', '--from', '2026-01-01T05:05:00Z', '--to', '2026-01-01T05:06:00Z'], env);
      assert.equal(JSON.parse(read.stdout).records.length, 2);
    });

    test('racing appends to one stream never mix: each is stored or refused with 409, reads show the stored ones', async () => {
      const bodies = [events(10, 5), events(11, 5), events(12, 5)];
      const rs = await Promise.all(bodies.map((b) => append({ stream: 'race/app', body_text: b })));
      const statuses = rs.map((r) => r.status);
      assert.ok(statuses.every((x) => x === 201 || x === 409), String(statuses));
      assert.ok(statuses.includes(201));
      const stored = bodies.filter((_, i) => statuses[i] === 201);
      const read = await ok(await s.call('POST', '/v1/adapters/stream/read', { key: KEYS.acmeReader, body: { stream: 'race/app' } }), 200);
      const expected = stored.flatMap((b) => b.trim().split('\n').map((l) => JSON.parse(l)));
      assert.deepEqual(
        read.records.map((r: Json) => r.msg).sort(),
        expected.map((r: Json) => r.msg).sort(),
      );
    });
  });
}
