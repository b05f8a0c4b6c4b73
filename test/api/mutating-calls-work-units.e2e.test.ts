/**
 * Issue 10, defect 14 (spec design rule 1: every API that changes behaviour
 * exposes a traceable work unit id): object delete, cache store (exact and
 * semantic), semantic clear, approvals issue and revoke, switch changes and
 * policy publish/reload each answer with `work_unit_id` in the body and
 * `X-SVC-Work-Unit-ID`; the id is a stored work unit of the operation's
 * kind (GET /v1/work-units/{id}, the list), and the ledger events the call
 * wrote name it. Over REST and, for cache store and delete, gRPC.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS } from '../helpers/server.ts';
import { type GrpcTestServer, startGrpcTestServer, unary, withKey } from '../grpc/support/grpc-test-server.ts';
import { toStruct, toValue } from '../../src/svc/grpc/mapping/struct.ts';
import { deleteAllowedBundle } from '../helpers/policy-bundles.ts';

type Json = Record<string, any>;
const ck = (text: string) => `ck_${createHash('sha256').update(text).digest('hex')}`;

const DELETE_BUNDLE = deleteAllowedBundle('scratch', 'wu-ops-1');

for (const engine of engines()) {
  describe(`every mutating call returns a work unit id (${engine.name})`, { skip: engine.skip }, () => {
    let s: GrpcTestServer;
    before(async () => {
      s = await startGrpcTestServer({ engine: engine.name });
    });
    after(async () => s?.close());

    /** Calls a mutating route and checks body, header, stored work unit and the ledger events naming it. */
    const mutate = async (route: string, key: string, body: unknown, kind: string, tenant: string, expectedStatus = 200) => {
      const r = await s.http.call('POST', route, { key, body });
      const json = (await r.json()) as Json;
      assert.equal(r.status, expectedStatus, `${route}: ${JSON.stringify(json)}`);
      assert.match(json.work_unit_id, /^wu_[0-9a-z]{26}$/, route);
      assert.equal(r.headers.get('x-svc-work-unit-id'), json.work_unit_id, route);
      const wu = (await (await s.http.call('GET', `/v1/work-units/${json.work_unit_id}`, { key: ADMIN_KEY })).json()) as Json;
      assert.deepEqual([wu.kind, wu.state, wu.tenant, wu.trace_id], [kind, 'executed', tenant, r.headers.get('x-svc-trace-id')], route);
      const events = await s.http.app.store.ledger.query({ limit: 10_000 });
      const named = events.filter((e) => e.work_unit_id === json.work_unit_id).map((e) => e.type);
      assert.ok(named.includes('work_unit.created'), `${route}: ${named.join(',')}`);
      return { json, events: named };
    };

    test('exact and semantic cache store, and semantic clear', async () => {
      const store = await mutate('/v1/cache/store', KEYS.acmeWriter, { key: ck('ops-store'), value: { text: 'v' }, verification: { type: 'non_empty_text' } }, 'cache_store', 'acme');
      assert.ok(store.events.includes('cache.entry.stored'), 'the store event names the work unit');
      await mutate('/v1/cache/semantic/store', KEYS.acmeWriter, { domain: 'faq', query: 'What is a work unit?', source_fingerprints: ['doc:v1'], policy_id: 'pb_x', value: { text: 'a unit' }, verification: { type: 'non_empty_text' } }, 'semantic_cache_store', 'acme');
      const clear = await mutate('/v1/cache/semantic/clear', KEYS.operator, { tenant: 'acme', domain: 'faq' }, 'semantic_cache_clear', 'acme');
      assert.equal(clear.json.removed, 1);
    });

    test('approvals issue, redeem and revoke', async () => {
      const created = (await (await s.http.call('POST', '/v1/work-units', { key: KEYS.acmeWriter, body: { kind: 'byte_object', logical_ref: 's3://ops/approved', payload: { _svc_encoding: 'base64', data: 'AA==' } } })).json()) as Json;
      const issued = await mutate('/v1/approvals', KEYS.approver, { tenant: 'acme', contract: 'semantic', work_unit_id: created.work_unit_id }, 'approval_issue', 'acme', 201);
      assert.ok(issued.json.token && issued.json.approval.id);
      assert.equal(issued.json.approval.work_unit_id, created.work_unit_id, 'the approved work unit is still the one asked for');
      const wu = (await (await s.http.call('GET', `/v1/work-units/${issued.json.work_unit_id}`)).json()) as Json;
      assert.equal(JSON.stringify(wu).includes(issued.json.token), false, 'the token is never stored in the work unit');
      const redeemed = await s.http.call('POST', '/v1/approvals/redeem', { key: KEYS.acmeWriter, body: { contract: 'semantic', work_unit_id: created.work_unit_id }, headers: { 'X-SVC-Approval': issued.json.token } });
      const redeemedBody = (await redeemed.json()) as Json;
      assert.equal(redeemed.status, 200, JSON.stringify(redeemedBody));
      assert.equal(redeemedBody.approved, true);
      assert.equal(redeemed.headers.get('x-svc-work-unit-id'), redeemedBody.work_unit_id);
      const redeemUnit = (await (await s.http.call('GET', `/v1/work-units/${redeemedBody.work_unit_id}`)).json()) as Json;
      assert.deepEqual([redeemUnit.kind, redeemUnit.state], ['approval_redeem', 'executed']);
      await mutate(`/v1/approvals/${issued.json.approval.id}/revoke`, KEYS.approver, {}, 'approval_revoke', 'acme');
    });

    test('switch changes, policy publish and reload', async () => {
      const flip = await mutate('/v1/admin/switches', ADMIN_KEY, { switch: 'force_exact_contract', enabled: true }, 'switch_change', 'default');
      assert.ok(flip.events.includes('admin.switch.changed'));
      await mutate('/v1/admin/switches', ADMIN_KEY, { switch: 'force_exact_contract', enabled: false }, 'switch_change', 'default');
      const published = await mutate('/v1/policies/bundles/default/publish', KEYS.publisher, { document: DELETE_BUNDLE }, 'policy_publish', 'default', 201);
      assert.ok(published.events.includes('policy.bundle.published'));
      await mutate('/v1/policies/bundles/default/reload', KEYS.publisher, undefined, 'policy_reload', 'default');
    });

    test('object delete (allowed by policy), over REST and gRPC; the list finds them by kind', async () => {
      for (const key of ['a.txt', 'b.txt']) {
        const put = await s.http.call('POST', '/v1/s3/objects', { key: ADMIN_KEY, body: { tenant: 'acme', bucket: 'scratch', key, body_text: `delete me ${key}` } });
        assert.equal(put.status, 201);
      }
      const del = await mutate('/v1/s3/objects/delete', ADMIN_KEY, { tenant: 'acme', bucket: 'scratch', key: 'a.txt' }, 'object_delete', 'acme');
      assert.equal(del.json.state, 'tombstoned');
      const grpcDel = (await unary<Json, Json>(s.clients.objects, 'Delete', { tenant: 'acme', bucket: 'scratch', key: 'b.txt' }, withKey(ADMIN_KEY))).response;
      assert.match(grpcDel.work_unit_id, /^wu_/);
      const listed = (await (await s.http.call('GET', '/v1/work-units?tenant=acme&kind=object_delete')).json()) as Json;
      assert.deepEqual(listed.work_units.map((w: Json) => w.work_unit_id), [del.json.work_unit_id, grpcDel.work_unit_id]);
      assert.deepEqual(listed.work_units.map((w: Json) => w.logical_ref), ['s3://scratch/a.txt', 's3://scratch/b.txt']);
    });

    test('manifest import (an export read back: every manifest skipped) is a work unit too', async () => {
      const doc = await (await s.http.call('POST', '/v1/manifests/export', { key: ADMIN_KEY, body: { tenant: 'acme' } })).json();
      const imported = await mutate('/v1/manifests/import', ADMIN_KEY, doc, 'manifest_import', 'default');
      assert.equal(imported.json.manifests_imported, 0);
    });

    test('gRPC CacheService.Store returns the work unit id, a stored unit of kind cache_store', async () => {
      const r = (await unary<Json, Json>(s.clients.cache, 'Store', { key: ck('grpc-ops'), value: toValue({ answer: 1 }), verification: toStruct({ type: 'json_shape', required_keys: ['answer'] }) }, withKey(KEYS.acmeWriter))).response;
      assert.match(r.work_unit_id, /^wu_/);
      const wu = (await unary<Json, Json>(s.clients.workUnits, 'Get', { work_unit_id: r.work_unit_id }, withKey(KEYS.acmeReader))).response.work_unit;
      assert.deepEqual([wu.kind, wu.state], ['WORK_UNIT_KIND_CACHE_STORE', 'WORK_UNIT_STATE_EXECUTED']);
    });

    test('a refused call records nothing unless it wrote audit events; then its failed unit is named in the error', async () => {
      const before = ((await (await s.http.call('GET', '/v1/work-units?kind=cache_store&limit=1000')).json()) as Json).work_units.length;
      const invalid = await s.http.call('POST', '/v1/cache/store', { key: KEYS.acmeWriter, body: { key: ck('bad'), value: {}, verification: { type: 'non_empty_text' }, verifier_passed: true } });
      assert.equal(invalid.status, 400);
      assert.equal(((await invalid.json()) as Json).error.work_unit_id, null);
      const after = ((await (await s.http.call('GET', '/v1/work-units?kind=cache_store&limit=1000')).json()) as Json).work_units.length;
      assert.equal(after, before, 'a schema refusal is not a work unit');
      const cross = await s.http.call('POST', '/v1/cache/store', { key: KEYS.globexWriter, body: { tenant: 'acme', key: ck('cross'), value: { text: 'x' }, verification: { type: 'non_empty_text' } } });
      const crossBody = (await cross.json()) as Json;
      assert.equal(crossBody.error.code, 'cache_permission_denied');
      const failed = (await (await s.http.call('GET', `/v1/work-units/${crossBody.error.work_unit_id}`)).json()) as Json;
      assert.deepEqual([failed.kind, failed.state, failed.tenant], ['cache_store', 'failed', 'globex']);
      const events = await s.http.app.store.ledger.query({ tenant: 'globex', eventTypes: ['cache.cross_tenant.denied'], limit: 100 });
      assert.ok(events.some((e) => e.work_unit_id === crossBody.error.work_unit_id));
    });
  });
}
