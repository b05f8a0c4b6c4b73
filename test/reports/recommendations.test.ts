/**
 * `GET /v1/reports/recommendations`, the dashboard's data section and
 * `svc report recommendations` over a seeded svc on SQLite and PostgreSQL:
 * duplicates across prefixes, repeated samples inside a prefix, a log never
 * read, a prompt whose context had to be compiled, and a configured model
 * without traffic are reported with their evidence ids.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { runSvc } from '../helpers/cli.ts';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS } from '../helpers/server.ts';
import { ACME_AUDITOR, type Seeded, put, startSeeded } from './support.ts';

type Json = any;
const DOC = 'Retrieved document: the refund window is thirty days from delivery for all physical goods.';

for (const engine of engines()) {
  describe(`recommendations (${engine.name})`, { skip: engine.skip }, () => {
    let s: Seeded;
    const ids: Record<string, string> = {};
    before(async () => {
      s = await startSeeded(engine.name);
      const blob = randomBytes(300_000);
      for (const [bucket, key] of [['data', 'train/a.bin'], ['data', 'train/b.bin'], ['backup', 'a.bin']] as const) await put(s.svc, KEYS.acmeWriter, bucket, key, blob);
      await put(s.svc, KEYS.acmeWriter, 'logs', 'app.log', Buffer.from('INFO ok\n'.repeat(3000)));
      await put(s.svc, KEYS.globexWriter, 'logs', 'other.log', Buffer.from('INFO globex\n'.repeat(100)));
      for (const [bucket, key] of [['backup', 'a.bin'], ['logs', 'app.log']] as const) {
        const head = (await (await s.svc.call('POST', '/v1/s3/objects/head', { key: KEYS.acmeWriter, body: { bucket, key } })).json()) as Json;
        ids[`${bucket}/${key}`] = head.manifest_id;
      }
      const r = await s.svc.call('POST', '/v1/chat/completions', {
        key: KEYS.acmeWriter,
        body: { model: 'mock-small', messages: [{ role: 'system', content: `Context:\n\n${DOC}\n\n${DOC}` }, { role: 'user', content: 'How long is the refund window?' }], svc: { contract: 'semantic' } },
      });
      assert.equal(r.status, 200, await r.clone().text());
      const body = (await r.json()) as Json;
      ids.prompt = r.headers.get('x-svc-manifest-id') ?? body.svc?.manifest_id;
    });
    after(async () => s?.close());

    test('the findings name their evidence, a labelled estimate and a severity', async () => {
      const r = await s.svc.call('GET', '/v1/reports/recommendations?tenant=acme');
      assert.equal(r.status, 200);
      const body = (await r.json()) as Json;
      const by = Object.fromEntries(body.recommendations.map((x: Json) => [x.finding, x]));
      assert.ok(by.duplicate_datasets.evidence.ids.includes(ids['backup/a.bin']), JSON.stringify(by.duplicate_datasets));
      assert.ok(by.repeated_training_samples.evidence.count >= 1);
      assert.deepEqual(by.unused_logs.evidence.ids, [ids['logs/app.log']], 'the tenant filter keeps globex out');
      assert.deepEqual(by.unused_model_variants.evidence.ids, ['mock/mock-large']);
      assert.deepEqual(by.bloated_prompts.evidence.ids, [ids.prompt]);
      for (const x of body.recommendations) assert.equal(x.estimated_saving.estimate, true);
      assert.equal(body.ledger_head.event_id.startsWith('evt_'), true);
    });

    test('a read takes a log off the unused list; the dashboard data section carries the same findings', async () => {
      const got = await s.svc.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeWriter, body: { bucket: 'logs', key: 'app.log' } });
      assert.equal(got.status, 200);
      await got.arrayBuffer();
      const dash = (await (await s.svc.call('GET', '/v1/reports/dashboard', { key: ACME_AUDITOR })).json()) as Json;
      const findings = dash.sections.data.recommendations.map((x: Json) => x.finding);
      assert.equal(findings.includes('unused_logs'), false);
      assert.ok(findings.includes('duplicate_datasets'));
    });

    test('svc report recommendations prints them', async () => {
      const r = await runSvc(['--url', s.svc.url, '--json', 'report', 'recommendations', '--tenant', 'acme'], { SVC_API_KEY: ADMIN_KEY });
      assert.equal(r.status, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).report, 'recommendations');
    });
  });
}
