import { test } from 'node:test';
import assert from 'node:assert/strict';
import { publishedValidator, runBin } from './run-bin.ts';

const smokeReportIssues = publishedValidator('smoke/schemas/attr-smoke-report.v1.schema.json');

for (const suite of ['service', 'load', 'provider', 'security'] as const) {
  test(`attr-smoke ${suite} passes every check against the real service`, async () => {
    const args = suite === 'load' ? [suite, '--requests', '120', '--concurrency', '12'] : [suite];
    const result = await runBin('attr-smoke', args, { timeoutMs: 180_000 });
    const failed = (result.json?.checks ?? []).filter((c: { status: string }) => c.status !== 'passed');
    assert.equal(result.code, 0, `exit ${result.code}; failed checks: ${JSON.stringify(failed)}; stderr: ${result.stderr.slice(0, 2000)}`);
    assert.equal(result.json.schema, 'attr-smoke-report/v1');
    assert.deepEqual(smokeReportIssues(result.json), [], 'the report matches its published schema');
    assert.equal(result.json.suite, suite);
    assert.equal(result.json.ok, true);
    assert.ok(result.json.checks.length >= 3);
  });
}

test('attr-smoke rejects an unknown suite with exit code 2', async () => {
  const result = await runBin('attr-smoke', ['nonsense']);
  assert.equal(result.code, 2);
});
