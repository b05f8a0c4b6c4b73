/**
 * Issue 10, defect 14: the work-unit list — `GET /v1/work-units`, gRPC
 * `WorkUnitService.ListWorkUnits` and `svc work-units list` (alias `svc
 * work-unit list`): filters by tenant, kind, state and creation time, pages
 * with a continuation token, and a tenant-bound key sees only its tenant.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import * as grpc from '@grpc/grpc-js';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS } from '../helpers/server.ts';
import { type GrpcTestServer, errorBodyFrom, grpcFailure, startGrpcTestServer, unary, withKey } from '../grpc/support/grpc-test-server.ts';

type Json = Record<string, any>;
const runFile = promisify(execFile);
const envelope = (text: string) => ({ _svc_encoding: 'base64', data: Buffer.from(text).toString('base64') });

for (const engine of engines()) {
  describe(`work-unit list over REST, gRPC and the CLI (${engine.name})`, { skip: engine.skip }, () => {
    let s: GrpcTestServer;
    const created: Json[] = [];
    let between = '';
    const list = async (query: string, key: string = ADMIN_KEY) => {
      const r = await s.http.call('GET', `/v1/work-units${query}`, { key });
      return { status: r.status, body: (await r.json()) as Json };
    };
    before(async () => {
      s = await startGrpcTestServer({ engine: engine.name });
      const create = async (key: string, body: Json) => {
        const r = await s.http.call('POST', '/v1/work-units', { key, body });
        assert.equal(r.status, 201, await r.clone().text());
        created.push((await r.json()) as Json);
      };
      await create(KEYS.acmeWriter, { kind: 'byte_object', logical_ref: 's3://list/a', payload: envelope('a') });
      await create(KEYS.acmeWriter, { kind: 'prompt_request', logical_ref: 'prompt://list/b', payload: { messages: [{ role: 'user', content: 'hi' }] } });
      await new Promise((r) => setTimeout(r, 15));
      between = new Date().toISOString();
      await new Promise((r) => setTimeout(r, 15));
      await create(KEYS.globexWriter, { kind: 'byte_object', logical_ref: 's3://list/c', payload: envelope('c') });
      await create(KEYS.acmeWriter, { kind: 'byte_object', logical_ref: 's3://list/d', payload: envelope('d') });
      const planned = await s.http.call('POST', `/v1/work-units/${created[3]!.work_unit_id}/plan`, { key: KEYS.acmeWriter, body: {} });
      assert.equal(planned.status, 200);
    });
    after(async () => s?.close());

    test('filters by tenant, kind, state and time; oldest first; payload bytes are never listed', async () => {
      const acme = await list('?tenant=acme');
      assert.equal(acme.status, 200);
      assert.deepEqual(acme.body.work_units.map((w: Json) => w.logical_ref), ['s3://list/a', 'prompt://list/b', 's3://list/d']);
      assert.equal(acme.body.next_continuation_token, null);
      assert.deepEqual(acme.body.work_units[0].payload, { kind: 'binary', size: 1, sha256: created[0]!.payload.sha256 });
      assert.deepEqual((await list('?tenant=acme&kind=prompt_request')).body.work_units.map((w: Json) => w.work_unit_id), [created[1]!.work_unit_id]);
      assert.deepEqual((await list('?tenant=acme&state=planned')).body.work_units.map((w: Json) => w.work_unit_id), [created[3]!.work_unit_id]);
      assert.deepEqual((await list(`?tenant=acme&from=${encodeURIComponent(between)}`)).body.work_units.map((w: Json) => w.logical_ref), ['s3://list/d']);
      assert.deepEqual((await list(`?tenant=acme&to=${encodeURIComponent(between)}`)).body.work_units.map((w: Json) => w.logical_ref), ['s3://list/a', 'prompt://list/b']);
      const all = await list('');
      assert.ok(all.body.work_units.some((w: Json) => w.tenant === 'globex') && all.body.work_units.some((w: Json) => w.tenant === 'acme'), 'an unbound key sees every tenant');
    });

    test('pages follow the continuation token to the end, with no repeats and no empty last page', async () => {
      const seen: string[] = [];
      let token: string | null = null;
      let pages = 0;
      do {
        const page = await list(`?tenant=acme&limit=2${token ? `&continuation_token=${token}` : ''}`);
        assert.equal(page.status, 200);
        assert.ok(page.body.work_units.length > 0);
        seen.push(...page.body.work_units.map((w: Json) => w.work_unit_id));
        token = page.body.next_continuation_token;
        pages++;
      } while (token);
      assert.equal(pages, 2);
      assert.deepEqual(seen, [created[0]!, created[1]!, created[3]!].map((w) => w.work_unit_id));
    });

    test('a tenant-bound key sees only its tenant; naming another is 403; bad filters and garbage tokens are 400', async () => {
      const own = await list('', KEYS.globexWriter);
      assert.deepEqual(own.body.work_units.map((w: Json) => w.tenant), ['globex']);
      const cross = await list('?tenant=acme', KEYS.globexWriter);
      assert.deepEqual([cross.status, cross.body.error.code], [403, 'tenant_forbidden']);
      for (const bad of ['?continuation_token=garbage', '?continuation_token=d3VsMTpub3QtYW4taWQ', '?state=exploded', '?from=yesterday', '?limit=0', '?limit=abc', '?colour=blue', `?from=${encodeURIComponent(between)}&to=${encodeURIComponent(between)}`]) {
        const r = await list(bad);
        assert.equal(r.status, 400, `${bad}: ${JSON.stringify(r.body)}`);
        assert.ok(['invalid_request'].includes(r.body.error.code), bad);
      }
    });

    test('gRPC ListWorkUnits returns the same page, tenant-bound, with the continuation token', async () => {
      const first = (await unary<Json, Json>(s.clients.workUnits, 'ListWorkUnits', { tenant: 'acme', limit: 2 }, withKey(KEYS.acmeReader))).response;
      assert.deepEqual(first.work_units.map((w: Json) => w.work_unit_id), [created[0]!.work_unit_id, created[1]!.work_unit_id]);
      assert.equal(first.work_units[1].kind, 'WORK_UNIT_KIND_PROMPT_REQUEST');
      const second = (await unary<Json, Json>(s.clients.workUnits, 'ListWorkUnits', { continuation_token: first.next_continuation_token }, withKey(KEYS.acmeReader))).response;
      assert.deepEqual(second.work_units.map((w: Json) => w.work_unit_id), [created[3]!.work_unit_id]);
      assert.equal(second.next_continuation_token ?? null, null);
      const planned = (await unary<Json, Json>(s.clients.workUnits, 'ListWorkUnits', { state: 'WORK_UNIT_STATE_PLANNED' }, withKey(KEYS.acmeReader))).response;
      assert.deepEqual(planned.work_units.map((w: Json) => w.work_unit_id), [created[3]!.work_unit_id]);
      const cross = await grpcFailure(() => unary(s.clients.workUnits, 'ListWorkUnits', { tenant: 'globex' }, withKey(KEYS.acmeReader)));
      assert.equal(cross.code, grpc.status.PERMISSION_DENIED);
      const garbage = await grpcFailure(() => unary(s.clients.workUnits, 'ListWorkUnits', { continuation_token: 'garbage' }, withKey(KEYS.acmeReader)));
      assert.deepEqual([garbage.code, errorBodyFrom(garbage).error.code], [grpc.status.INVALID_ARGUMENT, 'invalid_request']);
    });

    test('svc work-units list and svc work-unit list print the page', async () => {
      const cli = async (group: string, args: string[]) => {
        const { stdout } = await runFile(process.execPath, ['bin/svc.mjs', group, 'list', ...args, '--json'], { env: { ...process.env, SVC_URL: s.http.url, SVC_API_KEY: KEYS.acmeReader } });
        return JSON.parse(stdout) as Json;
      };
      const plural = await cli('work-units', ['--kind', 'byte_object', '--limit', '1']);
      assert.deepEqual(plural.work_units.map((w: Json) => w.work_unit_id), [created[0]!.work_unit_id]);
      const next = await cli('work-unit', ['--kind', 'byte_object', '--continuation-token', plural.next_continuation_token]);
      assert.deepEqual(next.work_units.map((w: Json) => w.work_unit_id), [created[3]!.work_unit_id]);
    });
  });
}
