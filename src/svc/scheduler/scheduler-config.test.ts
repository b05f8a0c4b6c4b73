import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadConfig } from '../config/load.ts';
import { shiftBoundsFor } from './scheduler-config.ts';

const load = (scheduler: Record<string, unknown>) => loadConfig({ env: { SVC_STATE_DIR: '/tmp/svc-scheduler-config-test' }, overrides: { scheduler } }).config.scheduler;

describe('scheduler shift bounds from config', () => {
  test('a tenant entry without max_delay_minutes keeps the global bound; an explicit null lifts it', () => {
    const config = load({ max_delay_minutes: 60, tenants: { acme: { shifting: true }, globex: { max_delay_minutes: null } } });
    assert.deepEqual(shiftBoundsFor(config, 'acme'), { shift: true, maxDelayMs: 60 * 60_000 });
    assert.deepEqual(shiftBoundsFor(config, 'globex'), { shift: true, maxDelayMs: null }, 'an explicit null lifts the bound');
    assert.deepEqual(shiftBoundsFor(config, 'initech'), { shift: true, maxDelayMs: 60 * 60_000 });
  });

  test("a kind's bound tightens the tenant's, never loosens it; shifting off on either side wins", () => {
    const config = load({ tenants: { acme: { max_delay_minutes: 120 }, globex: { shifting: false } }, kinds: { work_units: { max_delay_minutes: 30 }, external: { max_delay_minutes: 600 } } });
    assert.equal(shiftBoundsFor(config, 'acme', 'work_units').maxDelayMs, 30 * 60_000);
    assert.equal(shiftBoundsFor(config, 'acme', 'external').maxDelayMs, 120 * 60_000);
    assert.equal(shiftBoundsFor(config, 'initech', 'external').maxDelayMs, 600 * 60_000);
    assert.equal(shiftBoundsFor(config, 'globex', 'external').shift, false);
    const off = load({ kinds: { work_units: { shifting: false } } });
    assert.equal(shiftBoundsFor(off, 'acme', 'work_units').shift, false);
    assert.equal(shiftBoundsFor(off, 'acme', 'external').shift, true);
  });

  test('an unknown kind is a configuration error naming the known ones', () => {
    assert.throws(() => load({ kinds: { batch: {} } }), /scheduler\/kinds\/batch: unknown key \(known keys here: external, work_units\)/);
  });
});
