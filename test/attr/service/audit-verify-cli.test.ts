import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AuditLog } from '../../../src/attr/audit/audit-log.ts';
import { sha256Hex } from '../../../src/core/hashing.ts';
import { EXAMPLE_CORPUS, publishedValidator, runBin } from './run-bin.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'attr-audit-cli-'));
const logPath = path.join(dir, 'audit.jsonl');
const reportErrors = publishedValidator('audit/schemas/attr-audit-verification-report.v1.schema.json');
const entryErrors = publishedValidator('audit/schemas/attr-audit-entry.v1.schema.json');
after(() => rmSync(dir, { recursive: true, force: true }));

before(async () => {
  const log = await AuditLog.open(logPath, { fsync: 'none' });
  await Promise.all(
    Array.from({ length: 6 }, (_, i) =>
      log.append({
        request_id: `req-${i}`, route: 'attribute', operator: 'op', outcome: i % 2 ? 'blocked' : 'ready', error_code: null,
        event_id: `evt-${i}`, event_hash: sha256Hex(`e${i}`), event_created_at: '2025-01-01T00:00:00Z', footer_hash: sha256Hex(`f${i}`),
        source_count: 1, audit_error_count: 0, prompt_sha256: sha256Hex(`p${i}`), answer_sha256: sha256Hex(`a${i}`), gross_revenue: '1.00', provider: null,
      }),
    ),
  );
  await log.close();
});

function tampered(name: string, edit: (lines: string[]) => void): string {
  const lines = readFileSync(logPath, 'utf8').trimEnd().split('\n');
  edit(lines);
  const file = path.join(dir, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

test('every audit entry conforms to the published entry schema', () => {
  for (const line of readFileSync(logPath, 'utf8').trimEnd().split('\n')) assert.deepEqual(entryErrors(JSON.parse(line)), []);
});

test('an intact audit log verifies with exit 0 and a report that conforms to its schema', async () => {
  const result = await runBin('attr-service-audit-verify', ['--audit-log', logPath]);
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(reportErrors(result.json), []);
  assert.equal(result.json.ok, true);
  assert.equal(result.json.entries_checked, 6);
  assert.equal(result.json.head_seq, 6);
});

const TAMPERING: Array<[string, (lines: string[]) => void, string, number]> = [
  ['an edited outcome', (l) => (l[3] = l[3]!.replace('"outcome":"blocked"', '"outcome":"ready"')), 'entry_hash_mismatch', 4],
  ['a deleted entry', (l) => l.splice(2, 1), 'sequence_gap', 3],
  ['a swapped pair of entries', (l) => ([l[1], l[2]] = [l[2]!, l[1]!]), 'sequence_gap', 2],
  ['a rewritten prev_hash', (l) => (l[4] = l[4]!.replace(/"prev_hash":"[0-9a-f]{64}"/, `"prev_hash":"${'a'.repeat(64)}"`)), 'prev_hash_mismatch', 5],
  ['a truncated last line', (l) => (l[5] = l[5]!.slice(0, 40)), 'parse_error', 6],
  ['an injected field', (l) => (l[0] = l[0]!.replace('{"schema"', '{"note":"x","schema"')), 'schema_invalid', 1],
];

for (const [what, edit, kind, line] of TAMPERING) {
  test(`${what} is detected and reported as the first bad entry`, async () => {
    const file = tampered(`${kind}-${line}.jsonl`, edit);
    const result = await runBin('attr-service-audit-verify', ['--audit-log', file]);
    assert.equal(result.code, 1);
    assert.deepEqual(reportErrors(result.json), []);
    assert.equal(result.json.ok, false);
    assert.equal(result.json.first_bad_entry.kind, kind);
    assert.equal(result.json.first_bad_entry.line, line);
  });
}

test('--config verifies the audit log named by a service config', async () => {
  const configPath = path.join(dir, 'config.json');
  const create = await runBin('attr-service-config', ['create', '--template', 'default', '--corpus', EXAMPLE_CORPUS, '--audit-log-path', logPath, '--artifact-dir', path.join(dir, 'artifacts'), '--output', configPath]);
  assert.equal(create.code, 0, create.stderr);
  const result = await runBin('attr-service-audit-verify', ['--config', configPath]);
  assert.equal(result.code, 0);
  assert.equal(result.json.audit_log_path, logPath);
  assert.equal(result.json.entries_checked, 6);
});

test('a missing audit log fails verification; giving no source is a usage error', async () => {
  const missing = await runBin('attr-service-audit-verify', ['--audit-log', path.join(dir, 'nope.jsonl')]);
  assert.equal(missing.code, 1);
  assert.equal(missing.json.first_bad_entry.kind, 'unreadable');
  const usage = await runBin('attr-service-audit-verify', []);
  assert.equal(usage.code, 2);
});
