/**
 * The gRPC error mapping: statuses come from ERROR_TABLE and nowhere else,
 * the error body rides in trailing metadata, unknown errors are INTERNAL with
 * a safe message, and the table in docs/grpc.md says what the code does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { ERROR_TABLE, SvcError, type SvcErrorCode } from '../../src/svc/errors.ts';
import { ERROR_BODY_KEY, ERROR_CODE_KEY, errorBodyOf, toStatusError } from '../../src/svc/grpc/status-error.ts';

describe('SvcError → gRPC status', () => {
  test('every code maps to the gRPC status of its ERROR_TABLE row, with the body in svc-error-bin', () => {
    for (const code of Object.keys(ERROR_TABLE) as SvcErrorCode[]) {
      const status = toStatusError(new SvcError(code, `message for ${code} — non-ASCII ok`, { workUnitId: 'wu_01abc', policyBundleId: 'pb_01xyz' }));
      assert.equal(status.code, ERROR_TABLE[code].grpc, code);
      assert.equal(status.details, `message for ${code} — non-ASCII ok`);
      const body = errorBodyOf(status.metadata);
      assert.deepEqual(body?.error, { code, message: `message for ${code} — non-ASCII ok`, work_unit_id: 'wu_01abc', policy_bundle_id: 'pb_01xyz', retryable: ERROR_TABLE[code].retryable });
      assert.equal(status.metadata?.get(ERROR_CODE_KEY)[0], code);
      assert.equal(status.metadata?.get('x-svc-work-unit-id')[0], 'wu_01abc');
    }
  });

  test('an unknown error is INTERNAL with a safe message; the cause is not sent', () => {
    const status = toStatusError(SvcError.from(new Error('connection string postgres://user:secret@db')));
    assert.equal(status.code, grpc.status.INTERNAL);
    assert.equal(status.details, 'internal error');
    const raw = status.metadata?.get(ERROR_BODY_KEY)[0];
    assert.ok(Buffer.isBuffer(raw));
    assert.equal(raw.toString('utf8').includes('secret'), false);
  });

  test('ids that are not id-shaped are left out of plain metadata (which must be ASCII)', () => {
    const status = toStatusError(new SvcError('conflict', 'x', { workUnitId: 'not an id\n' }));
    assert.deepEqual(status.metadata?.get('x-svc-work-unit-id'), []);
    assert.equal(errorBodyOf(status.metadata)?.error.work_unit_id, 'not an id\n');
  });

  test('the status table in docs/grpc.md matches ERROR_TABLE and lists every code', () => {
    const doc = readFileSync(new URL('../../docs/grpc.md', import.meta.url), 'utf8');
    const documented = new Map<string, number>();
    for (const line of doc.split('\n')) {
      const row = /^\| (`[a-z_]+`(?:, `[a-z_]+`)*) \| `[A-Z_]+` \((\d+)\) \|$/.exec(line);
      if (!row) continue;
      for (const code of row[1]!.match(/[a-z_]+/g) ?? []) documented.set(code, Number(row[2]));
    }
    assert.deepEqual([...documented.keys()].sort(), Object.keys(ERROR_TABLE).sort());
    for (const [code, status] of documented) assert.equal(status, ERROR_TABLE[code as SvcErrorCode].grpc, code);
  });
});
