/**
 * An acknowledged AI request whose records could not be moved out of the
 * journal (docs/decisions/141) does not go unnoticed: through the real server
 * it counts as a manifest write failure (the critical alert's input), shows in
 * `svc_ai_record_journal_rows{state="failed"}` and in the readiness report
 * (informational: the process still serves), and is logged with its journal
 * seq and the database's error, never the records' content.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { recordSet } from '../helpers/ai-record-set.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

describe('AI records set aside by the journal are surfaced (sqlite)', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ engine: 'sqlite' });
  });
  after(async () => s?.close());

  const metric = (text: string, series: string) => Number(new RegExp(`^${series.replace(/[{}"]/g, (c) => `\\${c}`)} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

  it('counts, reports and logs a set-aside row, and stays ready', async () => {
    const before = await (await s.call('GET', '/metrics')).text();
    assert.equal(metric(before, 'svc_ai_record_journal_rows{state="failed"}'), 0);
    const failuresBefore = metric(before, 'svc_manifest_write_failures_total');

    const good = recordSet('acme');
    const clash = recordSet('acme');
    clash.work_unit.id = good.work_unit.id; // acknowledged twice under one id: the second cannot be written
    clash.work_unit.logical_ref = 'ai://chat/CONTENT-MARKER-5f3a';
    for (const r of [good, clash]) {
      await s.app.store.db.transaction((tx) => s.app.store.aiRecords.write(tx, r));
      s.app.store.aiRecords.committed();
    }
    // A reader moves the journal first (the clash is set aside there) and still sees the first request's records.
    const read = await s.call('GET', `/v1/work-units/${good.work_unit.id}`, { key: KEYS.acmeReader });
    assert.equal(read.status, 200, await read.clone().text());

    const after = await (await s.call('GET', '/metrics')).text();
    assert.equal(metric(after, 'svc_ai_record_journal_rows{state="failed"}'), 1);
    assert.equal(metric(after, 'svc_ai_record_journal_rows{state="pending"}'), 0);
    assert.equal(metric(after, 'svc_manifest_write_failures_total'), failuresBefore + 1);

    const ready = await s.call('GET', '/readyz');
    assert.equal(ready.status, 200, 'set-aside records need an operator, not a load balancer');
    const checks = ((await ready.json()) as { checks: Array<{ name: string; ok: boolean; detail?: string }> }).checks;
    const journal = checks.find((c) => c.name === 'ai_record_journal');
    assert.equal(journal?.ok, true);
    assert.match(journal?.detail ?? '', /^1 AI request record set\(s\) could not be written/);

    await s.app.log.flush();
    const lines = readFileSync(s.app.log.file!, 'utf8').trim().split('\n');
    const logged = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.event_type === 'ai_records.set_aside');
    assert.equal(logged.length, 1);
    assert.equal(logged[0]!.severity, 'alert');
    assert.equal(typeof logged[0]!.journal_seq, 'number');
    assert.match(String(logged[0]!.error), /UNIQUE|constraint/i);
    assert.ok(!lines.some((l) => l.includes('CONTENT-MARKER-5f3a')), 'no record content in the log');
  });
});
