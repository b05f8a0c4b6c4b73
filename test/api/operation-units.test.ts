/** Operation work units on a real (SQLite) store: recorded on success, on a failure only when events name them. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { TenantGuard } from '../../src/svc/auth/tenant-guard.ts';
import { SvcError } from '../../src/svc/errors.ts';
import { LedgerAppender } from '../../src/svc/ledger/appender.ts';
import { WorkUnitService } from '../../src/svc/work-units/service.ts';
import { useStore } from '../helpers/store-fixture.ts';
import { OperationUnits } from '../../src/svc/operations/operation-units.ts';

describe('OperationUnits', () => {
  const fixture = useStore('sqlite');
  const setup = () => {
    const ledger = new LedgerAppender(fixture.store.ledger);
    const workUnits = new WorkUnitService({ workUnits: fixture.store.workUnits, ledger, tenants: new TenantGuard(ledger) });
    const ctx = { principal: makePrincipal('op-test', ['writer'], 'acme'), traceId: 'a'.repeat(32) };
    return { ledger, units: new OperationUnits(workUnits), ctx };
  };

  test('a successful call answers with work_unit_id, records an executed unit, and its events name the unit', async () => {
    const { ledger, units, ctx } = setup();
    const result = await units.run(
      ctx,
      'cache_store',
      async () => {
        await ledger.append({ type: 'test.operation.done', tenant: 'acme', actor: 'op-test', payload: {} });
        return { key: 'ck_x' };
      },
      (r) => ({ tenant: 'acme', logical_ref: `svc://cache/exact/${r.key}`, metadata: { key: r.key } }),
    );
    const wu = await fixture.store.workUnits.get(result.work_unit_id);
    assert.deepEqual([wu?.kind, wu?.state, wu?.tenant, wu?.metadata, wu?.trace_id], ['cache_store', 'executed', 'acme', { key: 'ck_x' }, ctx.traceId]);
    const events = await fixture.store.ledger.query({ tenant: 'acme', limit: 1000 });
    assert.deepEqual(events.filter((e) => e.work_unit_id === result.work_unit_id).map((e) => e.type).sort(), ['test.operation.done', 'work_unit.created']);
  });

  test('an event that already names a work unit keeps it', async () => {
    const { ledger, units, ctx } = setup();
    const other = 'wu_01jcccccccccccccccccccccccc';
    await units.run(ctx, 'object_delete', async () => {
      await ledger.append({ type: 'test.object.event', tenant: 'acme', actor: 'op-test', work_unit_id: other, payload: {} });
      return {};
    }, () => ({ tenant: 'acme', logical_ref: 's3://b/k', metadata: {} }));
    const events = await fixture.store.ledger.query({ tenant: 'acme', eventTypes: ['test.object.event'], limit: 10 });
    assert.equal(events[0]?.work_unit_id, other);
  });

  test('a failure that wrote nothing records nothing; one that wrote events records a failed unit and names it in the error', async () => {
    const { ledger, units, ctx } = setup();
    const before = (await fixture.store.workUnits.list({ limit: 1000 })).length;
    await assert.rejects(units.run(ctx, 'approval_issue', async () => { throw new SvcError('invalid_request', 'bad body'); }, () => ({ tenant: 'acme', logical_ref: 'x://y', metadata: {} })), (e: SvcError) => e.code === 'invalid_request' && e.workUnitId === undefined);
    assert.equal((await fixture.store.workUnits.list({ limit: 1000 })).length, before);
    let named: string | undefined;
    await assert.rejects(
      units.run(ctx, 'approval_issue', async () => {
        await ledger.append({ type: 'test.refused', tenant: 'acme', actor: 'op-test', payload: {} });
        throw new SvcError('forbidden', 'refused after auditing');
      }, () => ({ tenant: 'acme', logical_ref: 'x://y', metadata: {} })),
      (e: SvcError) => {
        named = e.workUnitId;
        return e.code === 'forbidden' && typeof e.workUnitId === 'string';
      },
    );
    const failed = await fixture.store.workUnits.get(named!);
    assert.deepEqual([failed?.kind, failed?.state, failed?.tenant, failed?.metadata], ['approval_issue', 'failed', 'acme', { error_code: 'forbidden' }]);
  });
});
