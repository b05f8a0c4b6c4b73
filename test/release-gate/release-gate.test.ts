/**
 * The release gate (spec: Versioning 4): it passes on this build, and each of
 * its six conditions, broken on purpose, fails the gate for that reason.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { type GateConditionId, runReleaseGate } from '../../src/svc/release-gate/release-gate.ts';
import { flipStoredByte } from '../helpers/chunk-damage.ts';

const FAILING_SUITE = 'test/fixtures/release-gate/failing-suite.ts';
const SAMPLES = fileURLToPath(new URL('../fixtures/manifests', import.meta.url));

function only(report: Awaited<ReturnType<typeof runReleaseGate>>, id: GateConditionId) {
  assert.equal(report.conditions.length, 1);
  assert.equal(report.conditions[0]!.id, id);
  return report.conditions[0]!;
}

describe('release gate', () => {
  test('every condition holds on this build', { timeout: 300_000 }, async () => {
    const report = await runReleaseGate();
    assert.deepEqual(report.conditions.map((c) => [c.id, c.passed, c.passed ? '' : c.summary]), [
      ['exact_restore', true, ''],
      ['policy_tests', true, ''],
      ['cache_isolation', true, ''],
      ['manifest_migration', true, ''],
      ['conformance', true, ''],
      ['hot_path_overhead', true, ''],
    ]);
    assert.equal(report.passed, true);
  });

  test('exact_restore fails when a stored chunk is damaged', { timeout: 120_000 }, async () => {
    const report = await runReleaseGate({
      only: ['exact_restore'],
      afterIngest: async (d, ids) => {
        const m = await d.app.objects.manifests.get({ principal: { actor: 't', roles: ['admin'], permissions: new Set(['work_units:read']), tenant: undefined } as never, traceId: 'tr_t' }, ids[0]!);
        await flipStoredByte(d.app.objects.chunkBackend, { chunk_scope: m.chunk_scope, id: m.chunks[0]!.id, codec: m.chunks[0]!.codec }, 3, 0x55);
      },
    });
    const c = only(report, 'exact_restore');
    assert.equal(report.passed, false);
    assert.equal(c.passed, false);
    assert.match(c.summary, /sampled_exact failed/);
  });

  test('policy_tests fails when a policy suite fails', { timeout: 120_000 }, async () => {
    const report = await runReleaseGate({ only: ['policy_tests'], policyTests: [FAILING_SUITE] });
    assert.equal(only(report, 'policy_tests').passed, false);
    assert.equal(report.passed, false);
  });

  test('cache_isolation fails when an isolation suite fails', { timeout: 120_000 }, async () => {
    const report = await runReleaseGate({ only: ['cache_isolation'], cacheIsolationTests: [FAILING_SUITE] });
    const c = only(report, 'cache_isolation');
    assert.equal(c.passed, false);
    assert.deepEqual(c.details['probe'], { cross_tenant_exact_hit: false, cross_tenant_semantic_hit: false, own_tenant_hit: true });
  });

  test('manifest_migration fails on a sample this build cannot read', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'gate-samples-'));
    try {
      cpSync(SAMPLES, dir, { recursive: true });
      const file = path.join(dir, 'v1', 'export.json');
      const doc = JSON.parse(readFileSync(file, 'utf8')) as { manifests: Array<Record<string, unknown>> };
      doc.manifests[0]!['schema_version'] = 0;
      writeFileSync(file, JSON.stringify(doc));
      const report = await runReleaseGate({ only: ['manifest_migration'], samplesDir: dir });
      const c = only(report, 'manifest_migration');
      assert.equal(c.passed, false);
      assert.match(String((c.details['v1'] as { error: string }).error), /cannot read/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('conformance fails against an upstream that breaks the OpenAI contract', { timeout: 120_000 }, async () => {
    const malformed = Object.fromEntries(['mock-small', 'mock-large', 'mock-flaky', 'mock-embed'].map((m) => [m, 'malformed']));
    const report = await runReleaseGate({ only: ['conformance'], upstreamBehaviors: malformed });
    const c = only(report, 'conformance');
    assert.equal(c.passed, false);
    assert.match(c.summary, /AI \d+ passed \/ [1-9]\d* failed/);
  });

  test('hot_path_overhead fails when the gateway exceeds the limit over the bare hop measured in the same run', { timeout: 120_000 }, async () => {
    const report = await runReleaseGate({ only: ['hot_path_overhead'], maxOverheadRatio: 0.5 });
    const c = only(report, 'hot_path_overhead');
    assert.equal(c.passed, false);
    assert.ok((c.details['ratio'] as number) > 0.5);
    assert.ok((c.details['bare_hop_p95_ms'] as number) > 0);
  });
});
