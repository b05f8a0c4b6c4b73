import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFile, mkdtemp, readFile, rename, rm, truncate, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../../core/hashing.ts';
import { AuditLog, AuditLogUnavailableError } from './audit-log.ts';
import type { AuditRecord } from './audit-entry.ts';
import { segmentPath } from './audit-segments.ts';
import { verifyAuditLogFile } from './verify-audit-log.ts';

function record(i: number): AuditRecord {
  return {
    request_id: `req-${i}`, route: 'attribute', operator: 'op', outcome: 'ready', error_code: null, event_id: `evt-${i}`,
    event_hash: sha256Hex(`event ${i}`), event_created_at: '2025-01-01T00:00:00.000Z', footer_hash: sha256Hex(`footer ${i}`),
    source_count: 2, audit_error_count: 0, prompt_sha256: sha256Hex(`prompt ${i}`), answer_sha256: sha256Hex(`answer ${i}`), gross_revenue: '10.00', provider: null,
  };
}

async function withLog(fn: (file: string, log: AuditLog) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attr-audit-live-'));
  const file = path.join(dir, 'audit.jsonl');
  const log = await AuditLog.open(file, { fsync: 'none' });
  try {
    for (let i = 1; i <= 3; i++) await log.append(record(i));
    await fn(file, log);
  } finally {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const TAMPERING: Array<[string, (file: string) => Promise<void>, RegExp]> = [
  ['removed', (f) => unlink(f), /removed/],
  ['replaced by a new file (logrotate create)', async (f) => { await rename(f, `${f}.1`); await writeFile(f, ''); }, /replaced/],
  ['truncated', (f) => truncate(f, 10), /size changed/],
  ['appended to by another writer', (f) => appendFile(f, '{"x":1}\n'), /size changed/],
  ['byte-edited in its last entry (same size)', async (f) => { const t = await readFile(f, 'utf8'); await writeFile(f, t.replace(/"req-3"/, '"req-9"')); }, /(last audit entry was modified|replaced)/],
];

for (const [what, tamper, message] of TAMPERING) {
  test(`a live log that is ${what} refuses the next append and reports the problem`, async () => {
    await withLog(async (file, log) => {
      await tamper(file);
      await assert.rejects(log.append(record(4)), (e: unknown) => e instanceof AuditLogUnavailableError && message.test(e.message));
      assert.equal(log.state().healthy, false);
      assert.match(log.state().problem!, message);
      await assert.rejects(log.append(record(5)), AuditLogUnavailableError, 'stays refusing');
    });
  });
}

test('a probe notices a removed log without any traffic', async () => {
  await withLog(async (file, log) => {
    await unlink(file);
    const state = await log.probe();
    assert.equal(state.healthy, false);
  });
});

test('an in-place byte edit of the last entry (same inode) is detected', async () => {
  await withLog(async (file, log) => {
    const { open } = await import('node:fs/promises');
    const text = await readFile(file, 'utf8');
    const at = text.lastIndexOf('"req-3"');
    const h = await open(file, 'r+');
    await h.write(Buffer.from('"req-8"'), 0, 7, Buffer.byteLength(text.slice(0, at)));
    await h.close();
    await assert.rejects(log.append(record(4)), /last audit entry was modified/);
  });
});

test('rotation twice keeps one chain across three files; reopening continues it', async () => {
  await withLog(async (file, log) => {
    const first = await log.rotate();
    assert.deepEqual([first.segment, first.segmentPath, first.headSeq], [1, segmentPath(file, 1), 3]);
    await Promise.all([4, 5, 6].map((i) => log.append(record(i))));
    const second = await log.rotate();
    assert.equal(second.headSeq, 6);
    const entry = await log.append(record(7));
    assert.equal(entry.seq, 7);
    assert.equal(entry.prev_hash, second.headHash, 'the new segment chains to the closed one');
    const report = await verifyAuditLogFile(file, { expectHead: { seq: 7, hash: entry.entry_hash } });
    assert.equal(report.ok, true, JSON.stringify(report.first_bad_entry));
    assert.deepEqual(report.segments.map((s) => [s.first_seq, s.head_seq]), [[1, 3], [4, 6], [7, 7]]);
    for (const checkpoint of [first, second]) {
      assert.equal((await verifyAuditLogFile(file, { expectHead: { seq: checkpoint.headSeq, hash: checkpoint.headHash } })).ok, true);
    }
    await log.close();
    const reopened = await AuditLog.open(file, { fsync: 'none' });
    assert.equal((await reopened.append(record(8))).seq, 8);
    assert.equal(reopened.state().segment, 3);
    await reopened.close();
  });
});

test('a missing middle segment or an edited closed segment fails verification', async () => {
  await withLog(async (file, log) => {
    await log.rotate();
    await log.append(record(4));
    await log.rotate();
    await log.append(record(5));
    await rename(segmentPath(file, 1), `${file}.bak`);
    const missing = await verifyAuditLogFile(file);
    assert.equal(missing.first_bad_entry?.kind, 'segment_missing');
    await rename(`${file}.bak`, segmentPath(file, 1));
    const text = await readFile(segmentPath(file, 2), 'utf8');
    await writeFile(segmentPath(file, 2), text.replace('"req-4"', '"req-X"'));
    const edited = await verifyAuditLogFile(file);
    assert.equal(edited.first_bad_entry?.kind, 'entry_hash_mismatch');
  });
});

test('an expected head catches entries cut off the end, which the chain alone cannot', async () => {
  await withLog(async (file, log) => {
    const last = await log.append(record(4));
    await log.close();
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    await writeFile(file, `${lines.slice(0, 2).join('\n')}\n`);
    assert.equal((await verifyAuditLogFile(file)).ok, true, 'a shortened log is still a valid chain');
    const report = await verifyAuditLogFile(file, { expectHead: { seq: 4, hash: last.entry_hash } });
    assert.equal(report.ok, false);
    assert.equal(report.first_bad_entry?.kind, 'expected_head_missing');
    assert.match(report.first_bad_entry!.message, /ends at entry 2 but the expected head is entry 4/);
    const rewritten = await verifyAuditLogFile(file, { expectHead: { seq: 2, hash: 'f'.repeat(64) } });
    assert.equal(rewritten.first_bad_entry?.kind, 'expected_head_mismatch');
  });
});
