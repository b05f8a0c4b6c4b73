/**
 * Multipart upload through the real HTTP server, on SQLite and PostgreSQL:
 * out-of-order and re-uploaded parts, digests, abort, missing and undersized
 * parts. The minimum part size is lowered so the tests stay small.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const MIN_PART = 64 * 1024;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

for (const engine of engines()) {
  describe(`multipart upload on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    const call = (route: string, body: unknown) => s.call('POST', route, { key: KEYS.acmeWriter, body });
    const json = async (route: string, body: unknown, status = 200) => {
      const res = await call(route, body);
      const text = await res.text();
      assert.equal(res.status, status, text);
      return JSON.parse(text) as any;
    };
    const create = async (key: string) => (await json('/v1/s3/multipart/create', { bucket: 'uploads', key }, 201)).upload_id as string;
    const part = (upload_id: string, part_number: number, bytes: Uint8Array, extra: Record<string, unknown> = {}) =>
      json('/v1/s3/multipart/part', { upload_id, part_number, body_base64: b64(bytes), ...extra });

    before(async () => {
      s = await startTestServer({ engine: engine.name, overrides: { 'multipart.min_part_bytes': MIN_PART } });
    });
    after(async () => s?.close());

    test('parts uploaded out of order, one of them twice, complete into the exact object', async () => {
      const data = corpusFile('log-like', 3 * MIN_PART + 1234, 'mp-order');
      const pieces = [data.subarray(0, MIN_PART), data.subarray(MIN_PART, 2 * MIN_PART), data.subarray(2 * MIN_PART, 3 * MIN_PART), data.subarray(3 * MIN_PART)];
      const id = await create('big.log');
      const digests: string[] = [];
      for (const n of [3, 1, 4]) digests[n] = (await part(id, n, pieces[n - 1]!)).sha256;
      await part(id, 2, corpusFile('random', MIN_PART, 'wrong-bytes')); // a first, wrong version of part 2…
      const redo = await part(id, 2, pieces[1]!); // …replaced by the right one
      digests[2] = redo.sha256;
      assert.equal(redo.sha256, sha256(pieces[1]!), 'the server computes the part digest');
      const done = await json('/v1/s3/multipart/complete', { upload_id: id, parts: [1, 2, 3, 4].map((n) => ({ part_number: n, sha256: digests[n] })) });
      assert.equal(done.output.sha256, sha256(data));
      assert.equal(done.part_count, 4);
      assert.match(done.manifest_id, /^mf_/);
      assert.match(done.work_unit_id, /^wu_/);
      const got = await call('/v1/s3/objects/get', { bucket: 'uploads', key: 'big.log' });
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), data);
      const events = (await (await s.call('POST', '/v1/ledger/query', { body: { tenant: 'acme', event_types: ['object.multipart.complete'] } })).json()) as any;
      assert.ok(events.events.some((e: any) => e.manifest_id === done.manifest_id));
    });

    test('a part whose bytes do not match the sha256 sent with it is refused and not stored', async () => {
      const id = await create('digest.bin');
      const bytes = corpusFile('random', 1000, 'mp-digest');
      const res = await call('/v1/s3/multipart/part', { upload_id: id, part_number: 1, body_base64: b64(bytes), sha256: '0'.repeat(64) });
      assert.equal(res.status, 400);
      const body = (await res.json()) as any;
      assert.equal(body.error.details.actual_sha256, sha256(bytes));
      const complete = await call('/v1/s3/multipart/complete', { upload_id: id, parts: [{ part_number: 1, sha256: sha256(bytes) }] });
      assert.equal(complete.status, 400, 'the refused part was not recorded');
      assert.equal(((await complete.json()) as any).error.details.reason, 'missing_part');
    });

    test('completion with a digest other than the one the server returned is refused', async () => {
      const id = await create('wrong-digest.bin');
      await part(id, 1, corpusFile('random', 500, 'mp-wd'));
      const res = await call('/v1/s3/multipart/complete', { upload_id: id, parts: [{ part_number: 1, sha256: 'f'.repeat(64) }] });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as any).error.details.reason, 'digest_mismatch');
    });

    test('completion naming a part that was never uploaded is refused and stores nothing', async () => {
      const id = await create('missing.bin');
      const one = await part(id, 1, corpusFile('random', MIN_PART, 'mp-miss'));
      const res = await call('/v1/s3/multipart/complete', { upload_id: id, parts: [{ part_number: 1, sha256: one.sha256 }, { part_number: 2, sha256: 'a'.repeat(64) }] });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as any).error.details.reason, 'missing_part');
      assert.equal((await call('/v1/s3/objects/head', { bucket: 'uploads', key: 'missing.bin' })).status, 404);
    });

    test('a part below the minimum size is refused unless it is the last', async () => {
      const id = await create('small.bin');
      const a = await part(id, 1, corpusFile('random', 100, 'mp-small-a'));
      const b = await part(id, 2, corpusFile('random', 100, 'mp-small-b'));
      const res = await call('/v1/s3/multipart/complete', { upload_id: id, parts: [{ part_number: 1, sha256: a.sha256 }, { part_number: 2, sha256: b.sha256 }] });
      assert.equal(res.status, 400);
      assert.equal(((await res.json()) as any).error.details.reason, 'part_too_small');
      const single = await json('/v1/s3/multipart/complete', { upload_id: id, parts: [{ part_number: 2, sha256: b.sha256 }] });
      assert.equal(single.details.bytes_in, 100, 'a small last (and only) part is fine');
    });

    test('parts must be listed in ascending order', async () => {
      const id = await create('order.bin');
      const a = await part(id, 1, corpusFile('random', MIN_PART, 'mp-ord-a'));
      const b = await part(id, 2, corpusFile('random', MIN_PART, 'mp-ord-b'));
      const res = await call('/v1/s3/multipart/complete', { upload_id: id, parts: [{ part_number: 2, sha256: b.sha256 }, { part_number: 1, sha256: a.sha256 }] });
      assert.equal(res.status, 400);
    });

    test('an aborted upload accepts no more parts and cannot complete', async () => {
      const id = await create('aborted.bin');
      const one = await part(id, 1, corpusFile('random', 300, 'mp-abort'));
      assert.equal((await json('/v1/s3/multipart/abort', { upload_id: id })).state, 'aborted');
      assert.equal((await call('/v1/s3/multipart/part', { upload_id: id, part_number: 2, body_text: 'late' })).status, 409);
      assert.equal((await call('/v1/s3/multipart/complete', { upload_id: id, parts: [{ part_number: 1, sha256: one.sha256 }] })).status, 409);
      assert.equal((await call('/v1/s3/objects/head', { bucket: 'uploads', key: 'aborted.bin' })).status, 404);
    });

    test('a part changed on disk fails completion, and the upload can be completed after re-uploading it', async () => {
      const id = await create('changed.bin');
      const bytes = corpusFile('random', 2000, 'mp-changed');
      const one = await part(id, 1, bytes);
      writeFileSync(path.join(s.app.stateDir, 'uploads', id, '1.part'), corpusFile('random', 2000, 'tampered'));
      const res = await call('/v1/s3/multipart/complete', { upload_id: id, parts: [{ part_number: 1, sha256: one.sha256 }] });
      assert.equal(res.status, 422);
      assert.equal(((await res.json()) as any).error.details.reason, 'part_changed');
      assert.equal((await call('/v1/s3/objects/head', { bucket: 'uploads', key: 'changed.bin' })).status, 404);
      const again = await part(id, 1, bytes);
      const done = await json('/v1/s3/multipart/complete', { upload_id: id, parts: [{ part_number: 1, sha256: again.sha256 }] });
      assert.equal(done.output.sha256, sha256(bytes));
    });

    test('another tenant cannot add parts to an upload', async () => {
      const id = await create('mine.bin');
      const res = await s.call('POST', '/v1/s3/multipart/part', { key: KEYS.globexWriter, body: { upload_id: id, part_number: 1, body_text: 'intruder' } });
      assert.equal(res.status, 404);
    });

    test('part numbers above 10,000 are refused', async () => {
      const id = await create('many.bin');
      const res = await call('/v1/s3/multipart/part', { upload_id: id, part_number: 10_001, body_text: 'x' });
      assert.equal(res.status, 400);
    });
  });
}
