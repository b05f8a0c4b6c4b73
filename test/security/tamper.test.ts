/**
 * Adversarial suite: tampering (issue 15). Every single-byte change,
 * truncation and reordering of svc's ledger rows and of attr's audit log is
 * found by the offline verifiers, which name the position of the first bad
 * entry. Exhaustive over a small chain (every byte of every stored field or
 * of the file), on SQLite and PostgreSQL for the ledger; the real CLIs are
 * run for one case of each kind.
 *
 * A chain cut at an entry boundary is a valid shorter chain: only a
 * checkpoint kept elsewhere (`--expect-head <seq>:<hash>`, from an earlier
 * verify) proves entries were removed, and both verifiers take one.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sha256Hex } from '../../src/core/hashing.ts';
import { AuditLog } from '../../src/attr/audit/audit-log.ts';
import type { AuditRecord } from '../../src/attr/audit/audit-entry.ts';
import { verifyAuditLogFile } from '../../src/attr/audit/verify-audit-log.ts';
import { LedgerAppender } from '../../src/svc/ledger/appender.ts';
import { verifyLedger } from '../../src/svc/ledger/verify.ts';
import { LEDGER_COLUMNS } from '../../src/svc/store/repositories/ledger.ts';
import { openStore } from '../../src/svc/store/store.ts';
import { engines, engineTarget } from '../helpers/engines.ts';
import { useStore } from '../helpers/store-fixture.ts';
import { REPO, runBin } from '../attr/service/run-bin.ts';

type Row = Record<(typeof LEDGER_COLUMNS)[number], string | number | null>;
const TAMPERABLE = LEDGER_COLUMNS.filter((c) => c !== 'seq');
const EVENTS = 8;

/** The character at `i` with its lowest bit flipped: for ASCII text, exactly one flipped byte. */
const flipAt = (s: string, i: number): string => s.slice(0, i) + String.fromCharCode(s.charCodeAt(i) ^ 1) + s.slice(i + 1);

async function appendSampleEvents(appender: LedgerAppender): Promise<void> {
  for (let i = 0; i < EVENTS; i++) {
    await appender.append({
      type: i % 2 ? 'object.put' : 'plan.created',
      tenant: i === 3 ? undefined : `tenant-${i % 3}`,
      actor: `actor-${i}`,
      ...(i % 2 ? { work_unit_id: `wu_01jaaaaaaaaaaaaaaaaaaaaa${i}${i}`, manifest_id: `mf_01jaaaaaaaaaaaaaaaaaaaaa${i}${i}` } : {}),
      ...(i === 5 ? { policy_bundle_id: 'pb_00000000000000000000000000' } : {}),
      trace_id: sha256Hex(`trace ${i}`).slice(0, 32),
      payload: { i, bytes: 1024 * i, note: i === 6 ? 'non-ASCII é 😀 and "quotes"' : `event ${i}`, nested: { ok: i % 2 === 0, list: [i, i + 1] } },
    });
  }
}

for (const engine of engines()) {
  describe(`svc ledger tampering (${engine.name})`, { skip: engine.skip }, () => {
    const fx = useStore(engine.name);
    let rows: Row[] = [];
    const setColumn = (seq: number, column: string, value: string | number | null) => fx.store.db.run(`UPDATE ledger_events SET ${column} = $1 WHERE seq = $2`, [value, seq]);
    /** Applies a change; false when the database itself refuses it (an id flipped onto another event's id). */
    const tamper = async (seq: number, column: string, value: string): Promise<boolean> => {
      try {
        await setColumn(seq, column, value);
        return true;
      } catch (err) {
        if (/UNIQUE|duplicate key/i.test(String(err))) return false;
        throw err;
      }
    };
    const expectBreakAt = async (row: Row, what: string) => {
      const report = await verifyLedger(fx.store.ledger);
      assert.equal(report.ok, false, `${what}: not detected`);
      assert.equal(report.firstBreak?.position, Number(row.seq), `${what}: reported at ${report.firstBreak?.position}`);
      // The event is also named by its id, as stored now (unless the tampering emptied it).
      const storedId = (await fx.store.ledger.scan(Number(row.seq) - 1, 1))[0]?.id;
      if (storedId) assert.equal(report.first_bad_event_id, storedId, what);
    };

    test('set-up: an intact chain', async () => {
      await appendSampleEvents(new LedgerAppender(fx.store.ledger));
      rows = (await fx.store.ledger.scan(0, EVENTS)) as unknown as Row[];
      assert.equal(rows.length, EVENTS);
      assert.equal((await verifyLedger(fx.store.ledger)).ok, true);
    });

    test('every single-byte flip of every stored field of every event is found at that event', async (t) => {
      let flips = 0;
      for (const row of rows) {
        for (const column of TAMPERABLE) {
          const original = row[column];
          if (original === null) {
            await setColumn(Number(row.seq), column, 'x');
            await expectBreakAt(row, `seq ${row.seq} ${column}: null → 'x'`);
            flips++;
          } else {
            const text = String(original);
            for (let i = 0; i < text.length; i++) {
              if (!(await tamper(Number(row.seq), column, flipAt(text, i)))) continue;
              await expectBreakAt(row, `seq ${row.seq} ${column}[${i}]`);
              flips++;
            }
            if (column !== 'id' && column !== 'ts' && column !== 'type' && column !== 'actor' && column !== 'payload' && column !== 'prev_hash' && column !== 'hash') {
              await setColumn(Number(row.seq), column, null);
              await expectBreakAt(row, `seq ${row.seq} ${column}: value → null`);
              flips++;
            }
          }
          await setColumn(Number(row.seq), column, original);
        }
      }
      t.diagnostic(`${flips} single-byte changes, each found at its event`);
      assert.equal((await verifyLedger(fx.store.ledger)).ok, true, 'restored');
    });

    test('every truncated field is found at its event', async () => {
      for (const row of rows) {
        for (const column of TAMPERABLE) {
          const original = row[column];
          if (original === null) continue;
          const text = String(original);
          for (const cut of [text.length - 1, Math.floor(text.length / 2), 0]) {
            await setColumn(Number(row.seq), column, text.slice(0, cut));
            await expectBreakAt(row, `seq ${row.seq} ${column} cut to ${cut}`);
          }
          await setColumn(Number(row.seq), column, original);
        }
      }
      assert.equal((await verifyLedger(fx.store.ledger)).ok, true);
    });

    test('every reordering of two events is found at the earlier one', async () => {
      const write = (seq: number, from: Row) => fx.store.db.run(`UPDATE ledger_events SET ${TAMPERABLE.map((c, k) => `${c} = $${k + 1}`).join(', ')} WHERE seq = $${TAMPERABLE.length + 1}`, [...TAMPERABLE.map((c) => from[c]), seq]);
      for (let i = 0; i < rows.length; i++) {
        for (let j = i + 1; j < rows.length; j++) {
          const [a, b] = [rows[i]!, rows[j]!];
          // Row ids are unique: park one first.
          await fx.store.db.run('UPDATE ledger_events SET id = $1 WHERE seq = $2', ['parked', Number(a.seq)]);
          await write(Number(b.seq), a);
          await write(Number(a.seq), b);
          const report = await verifyLedger(fx.store.ledger);
          assert.equal(report.ok, false, `swap ${a.seq}↔${b.seq}`);
          assert.equal(report.firstBreak?.position, Number(a.seq), `swap ${a.seq}↔${b.seq}`);
          await fx.store.db.run('UPDATE ledger_events SET id = $1 WHERE seq = $2', ['parked', Number(b.seq)]);
          await write(Number(a.seq), a);
          await write(Number(b.seq), b);
        }
      }
      assert.equal((await verifyLedger(fx.store.ledger)).ok, true);
    });

    test('a removed event is a gap at the next one; removed newest events fail against a checkpoint', async () => {
      const insert = (row: Row) =>
        fx.store.db.run(`INSERT INTO ledger_events (${LEDGER_COLUMNS.join(', ')}) VALUES (${LEDGER_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`, LEDGER_COLUMNS.map((c) => row[c]));
      for (const row of rows.slice(0, -1)) {
        await fx.store.db.run('DELETE FROM ledger_events WHERE seq = $1', [row.seq]);
        const report = await verifyLedger(fx.store.ledger);
        assert.deepEqual([report.ok, report.firstBreak?.kind, report.firstBreak?.position], [false, 'sequence_gap', Number(row.seq) + 1]);
        await insert(row);
      }
      // The newest events removed: a valid shorter chain, caught only by the checkpoint (exercised through the real CLI below).
      const last = rows.at(-1)!;
      await fx.store.db.run('DELETE FROM ledger_events WHERE seq = $1', [last.seq]);
      assert.equal((await verifyLedger(fx.store.ledger)).ok, true, 'a prefix verifies on its own');
      await insert(last);
    });
  });
}

describe('svc ledger verify --offline (the real CLI): position and checkpoint', () => {
  const cli = (stateDir: string, ...args: string[]) =>
    spawnSync(process.execPath, [path.join(REPO, 'bin/svc.mjs'), 'ledger', 'verify', '--offline', '--json', ...args], {
      env: { ...process.env, SVC_STATE_DIR: stateDir, SVC_DATABASE_URL: '' },
      encoding: 'utf8',
    });

  test('a flipped byte is named by event; a ledger cut short fails against --expect-head and passes without it', async () => {
    const target = await engineTarget('sqlite');
    try {
      let store = await openStore(target);
      await appendSampleEvents(new LedgerAppender(store.ledger));
      await store.close();
      const good = cli(target.stateDir);
      assert.equal(good.status, 0, good.stderr);
      const { checked, headHash } = JSON.parse(good.stdout) as { checked: number; headHash: string };
      const checkpoint = `${checked}:${headHash}`;
      assert.equal(cli(target.stateDir, '--expect-head', checkpoint).status, 0);

      store = await openStore(target);
      const victim = (await store.ledger.scan(4, 1))[0]!;
      await store.db.run('UPDATE ledger_events SET actor = $1 WHERE seq = $2', [flipAt(String(victim.actor), 0), victim.seq]);
      await store.close();
      const flipped = cli(target.stateDir);
      assert.equal(flipped.status, 3);
      assert.deepEqual([JSON.parse(flipped.stdout).firstBreak.position, JSON.parse(flipped.stdout).first_bad_event_id], [Number(victim.seq), victim.id]);

      store = await openStore(target);
      await store.db.run('UPDATE ledger_events SET actor = $1 WHERE seq = $2', [victim.actor, victim.seq]);
      await store.db.run('DELETE FROM ledger_events WHERE seq >= $1', [checked - 1]);
      await store.close();
      assert.equal(cli(target.stateDir).status, 0, 'without a checkpoint a cut chain is a valid prefix');
      const cut = cli(target.stateDir, '--expect-head', checkpoint);
      assert.equal(cut.status, 3, cut.stdout);
      assert.deepEqual(JSON.parse(cut.stdout).expected_head, { seq: checked, hash: headHash, outcome: 'missing', found_hash: null });
      const bad = cli(target.stateDir, '--expect-head', 'not-a-checkpoint');
      assert.notEqual(bad.status, 0);
      assert.match(bad.stderr + bad.stdout, /expect-head must be <seq>:<64 lowercase hex digits>/);
    } finally {
      await target.cleanup();
    }
  });
});

describe("attr audit log tampering (attr-service-audit-verify)", () => {
  const record = (i: number): AuditRecord => ({
    request_id: `req-${i}`,
    route: 'attribute',
    operator: 'op',
    outcome: i % 3 ? 'ready' : 'blocked',
    error_code: null,
    event_id: `evt-${i}`,
    event_hash: sha256Hex(`event ${i}`),
    event_created_at: '2026-11-25T00:00:00.000Z',
    footer_hash: sha256Hex(`footer ${i}`),
    source_count: i,
    audit_error_count: 0,
    prompt_sha256: sha256Hex(`prompt ${i}`),
    answer_sha256: sha256Hex(`answer ${i}`),
    gross_revenue: `${i}.50`,
    provider: null,
  });

  async function sampleLog(): Promise<{ dir: string; file: string; bytes: Buffer; head: string }> {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'attr-tamper-'));
    const file = path.join(dir, 'audit.jsonl');
    const log = await AuditLog.open(file, { fsync: 'per_batch' });
    let last;
    for (let i = 1; i <= 5; i++) last = await log.append(record(i));
    await log.close();
    return { dir, file, bytes: await readFile(file), head: `${last!.seq}:${last!.entry_hash}` };
  }
  const lineOf = (bytes: Buffer, offset: number) => bytes.subarray(0, offset).filter((b) => b === 0x0a).length + 1;
  const expectHead = (head: string) => {
    const [seq, hash] = head.split(':');
    return { seq: Number(seq), hash: hash! };
  };

  test('every single-byte flip of the file is found at its line', async (t) => {
    const { dir, file, bytes, head } = await sampleLog();
    try {
      assert.equal((await verifyAuditLogFile(file, { expectHead: expectHead(head) })).ok, true);
      for (let offset = 0; offset < bytes.length; offset++) {
        const tampered = Buffer.from(bytes);
        tampered[offset]! ^= 1;
        await writeFile(file, tampered);
        const report = await verifyAuditLogFile(file, { expectHead: expectHead(head) });
        assert.equal(report.ok, false, `byte ${offset}`);
        assert.equal(report.first_bad_entry?.line, lineOf(bytes, offset), `byte ${offset}: ${JSON.stringify(report.first_bad_entry)}`);
      }
      t.diagnostic(`${bytes.length} flipped bytes, each found at its line`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('every truncation fails against the checkpoint, mid-entry cuts also without it', async () => {
    const { dir, file, bytes, head } = await sampleLog();
    try {
      for (let length = 0; length < bytes.length; length++) {
        await writeFile(file, bytes.subarray(0, length));
        const withHead = await verifyAuditLogFile(file, { expectHead: expectHead(head) });
        // Dropping only the final newline loses no entry: every entry is still there and verifies.
        if (length === bytes.length - 1) {
          assert.equal(withHead.ok, true);
          continue;
        }
        assert.equal(withHead.ok, false, `cut at ${length}`);
        const atBoundary = length === 0 || bytes[length - 1] === 0x0a || bytes[length] === 0x0a;
        if (!atBoundary) {
          const alone = await verifyAuditLogFile(file);
          assert.deepEqual([alone.ok, alone.first_bad_entry?.kind, alone.first_bad_entry?.line], [false, 'parse_error', lineOf(bytes, length)], `cut at ${length}`);
        } else {
          assert.equal(withHead.first_bad_entry?.kind, 'expected_head_missing', `cut at ${length}`);
        }
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('every reordering of two entries is found at the earlier line; the real CLI names it and exits 1', async () => {
    const { dir, file, bytes, head } = await sampleLog();
    try {
      const lines = bytes.toString('utf8').split('\n').filter(Boolean);
      for (let i = 0; i < lines.length; i++) {
        for (let j = i + 1; j < lines.length; j++) {
          const swapped = [...lines];
          [swapped[i], swapped[j]] = [swapped[j]!, swapped[i]!];
          await writeFile(file, `${swapped.join('\n')}\n`);
          const report = await verifyAuditLogFile(file, { expectHead: expectHead(head) });
          assert.deepEqual([report.ok, report.first_bad_entry?.line], [false, i + 1], `swap ${i + 1}↔${j + 1}`);
        }
      }
      const cli = await runBin('attr-service-audit-verify', ['--audit-log', file, '--expect-head', head]);
      assert.equal(cli.code, 1, cli.stderr);
      assert.deepEqual([cli.json.ok, cli.json.first_bad_entry.line], [false, 4]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
