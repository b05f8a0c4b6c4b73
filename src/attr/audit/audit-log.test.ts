import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { sha256Hex } from '../../core/hashing.ts';
import { AuditLog, AuditLogUnavailableError } from './audit-log.ts';
import type { AuditRecord } from './audit-entry.ts';
import { verifyAuditLogFile } from './verify-audit-log.ts';

function record(i: number): AuditRecord {
  return {
    request_id: `req-${i}`,
    route: 'attribute',
    operator: 'op',
    outcome: 'ready',
    error_code: null,
    event_id: `evt-${i}`,
    event_hash: sha256Hex(`event ${i}`),
    event_created_at: '2025-01-01T00:00:00.000Z',
    footer_hash: sha256Hex(`footer ${i}`),
    source_count: 2,
    audit_error_count: 0,
    prompt_sha256: sha256Hex(`prompt ${i}`),
    answer_sha256: sha256Hex(`answer ${i}`),
    gross_revenue: '10.00',
    provider: null,
  };
}

async function tempLog(): Promise<{ dir: string; file: string }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attr-audit-'));
  return { dir, file: path.join(dir, 'audit.jsonl') };
}

test('concurrent appends produce one unbroken chain with consecutive sequence numbers', async () => {
  const { dir, file } = await tempLog();
  try {
    const log = await AuditLog.open(file, { fsync: 'per_batch' });
    const entries = await Promise.all(Array.from({ length: 50 }, (_, i) => log.append(record(i))));
    await log.close();
    assert.deepEqual(entries.map((e) => e.seq).sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i + 1));
    const report = await verifyAuditLogFile(file);
    assert.equal(report.ok, true);
    assert.equal(report.entries_checked, 50);
    assert.equal(report.head_seq, 50);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a reopened log continues the chain from its head', async () => {
  const { dir, file } = await tempLog();
  try {
    const first = await AuditLog.open(file, { fsync: 'none' });
    await first.append(record(1));
    await first.close();
    const second = await AuditLog.open(file, { fsync: 'none' });
    const entry = await second.append(record(2));
    await second.close();
    assert.equal(entry.seq, 2);
    assert.equal((await verifyAuditLogFile(file)).ok, true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('an edited entry is reported as the first bad entry with its line number', async () => {
  const { dir, file } = await tempLog();
  try {
    const log = await AuditLog.open(file, { fsync: 'none' });
    for (let i = 0; i < 4; i++) await log.append(record(i));
    await log.close();
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    lines[2] = lines[2]!.replace('"outcome":"ready"', '"outcome":"blocked"');
    await writeFile(file, `${lines.join('\n')}\n`);
    const report = await verifyAuditLogFile(file);
    assert.equal(report.ok, false);
    assert.equal(report.first_bad_entry?.line, 3);
    assert.equal(report.first_bad_entry?.kind, 'entry_hash_mismatch');
    assert.equal(report.head_seq, 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a deleted entry is reported as a sequence gap', async () => {
  const { dir, file } = await tempLog();
  try {
    const log = await AuditLog.open(file, { fsync: 'none' });
    for (let i = 0; i < 3; i++) await log.append(record(i));
    await log.close();
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    lines.splice(1, 1);
    await writeFile(file, `${lines.join('\n')}\n`);
    const report = await verifyAuditLogFile(file);
    assert.equal(report.first_bad_entry?.kind, 'sequence_gap');
    assert.equal(report.first_bad_entry?.line, 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a log that does not verify refuses further appends', async () => {
  const { dir, file } = await tempLog();
  try {
    await writeFile(file, '{"not":"an entry"}\n');
    const log = await AuditLog.open(file, { fsync: 'none' });
    assert.equal(log.state().healthy, false);
    await assert.rejects(log.append(record(1)), AuditLogUnavailableError);
    await log.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a lone append is durable before the event loop turns: written in the calling thread, no group-commit yield', async () => {
  const { dir, file } = await tempLog();
  try {
    const log = await AuditLog.open(file, { fsync: 'per_batch' });
    let turned = false;
    setImmediate(() => {
      turned = true;
    });
    const entry = await log.append(record(1), { alone: true });
    assert.equal(turned, false, 'no thread-pool trip and no yield: resolved within the same turn of the loop');
    assert.equal(entry.seq, 1);
    assert.equal((await readFile(file, 'utf8')).split('\n')[0], JSON.stringify(entry));
    // Without the hint the batch waits one turn for companions and is written by the thread pool.
    turned = false;
    setImmediate(() => {
      turned = true;
    });
    await log.append(record(2));
    assert.equal(turned, true);
    await log.close();
    assert.equal((await verifyAuditLogFile(file)).head_seq, 2);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('lone and grouped appends mixed keep one chain with consecutive sequence numbers', async () => {
  const { dir, file } = await tempLog();
  try {
    const log = await AuditLog.open(file, { fsync: 'per_batch' });
    const entries = [];
    for (let round = 0; round < 5; round++) {
      entries.push(await log.append(record(round * 10), { alone: true }));
      entries.push(...(await Promise.all(Array.from({ length: 6 }, (_, i) => log.append(record(round * 10 + i + 1), { alone: i % 2 === 0 })))));
    }
    await log.close();
    assert.deepEqual(entries.map((e) => e.seq).sort((a, b) => a - b), Array.from({ length: 35 }, (_, i) => i + 1));
    const report = await verifyAuditLogFile(file);
    assert.equal(report.ok, true);
    assert.equal(report.head_seq, 35);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a lone append to a log whose file was replaced is refused, nothing written', async () => {
  const { dir, file } = await tempLog();
  try {
    const log = await AuditLog.open(file, { fsync: 'per_batch' });
    await log.append(record(1), { alone: true });
    await writeFile(`${file}.new`, '');
    await rename(`${file}.new`, file);
    await assert.rejects(log.append(record(2), { alone: true }), AuditLogUnavailableError);
    assert.equal(log.state().healthy, false);
    assert.equal(await readFile(file, 'utf8'), '');
    await log.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
