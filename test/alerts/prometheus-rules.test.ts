/**
 * The Prometheus form of the alerts: the shipped rules file equals the
 * rendering of the one definition table, `promtool check rules` accepts it,
 * and `promtool test rules` shows every alert firing on its provoking series
 * and staying quiet on the others. Skips (with the reason) when promtool is
 * not installed, unless SVC_CI=1, where that is a failure.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import YAML from 'yaml';
import { ALERTS } from '../../src/svc/alerts/alert-definitions.ts';
import { RULES_FILE, renderPrometheusRules } from '../../src/svc/alerts/prometheus-rules.ts';
import { PROMTOOL_CASES } from './promtool-cases.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
const skip = PROMTOOL ? false : process.env.SVC_CI === '1' ? false : 'promtool not installed (apt-get install prometheus); CI (SVC_CI=1) requires it';

test('the shipped rules file is exactly the rendering of the alert definitions', () => {
  assert.equal(readFileSync(path.join(ROOT, RULES_FILE), 'utf8'), renderPrometheusRules(), 'regenerate: ./node_modules/.bin/node tools/alerts/write-prometheus-rules.ts');
  assert.equal(ALERTS.filter((a) => a.severity === 'critical').length, 8);
  assert.equal(ALERTS.filter((a) => a.severity === 'warning').length, 7);
  assert.deepEqual(PROMTOOL_CASES.map((c) => c.alert).sort(), ALERTS.map((a) => a.name).sort(), 'every alert has a fire and a quiet case');
});

test('promtool check rules accepts the rules file', { skip }, () => {
  assert.ok(PROMTOOL, 'promtool is required when SVC_CI=1');
  const r = spawnSync(PROMTOOL, ['check', 'rules', path.join(ROOT, RULES_FILE)], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /SUCCESS: 15 rules found/);
});

test('promtool test rules: every alert fires on its provoking series and stays quiet otherwise', { skip }, () => {
  assert.ok(PROMTOOL, 'promtool is required when SVC_CI=1');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-promtool-'));
  try {
    const tests = PROMTOOL_CASES.flatMap((c) => {
      const def = ALERTS.find((a) => a.name === c.alert)!;
      const expected = {
        exp_labels: { severity: def.severity, service: 'svc' },
        exp_annotations: { summary: def.summary, spec: def.spec, ...(def.quiet_until ? { quiet_until: def.quiet_until } : {}) },
      };
      const series = (s: Record<string, string>) => Object.entries(s).map(([name, values]) => ({ series: name, values }));
      return [
        { name: `${c.alert} fires`, interval: '1m', input_series: series(c.fire.series), alert_rule_test: [{ eval_time: c.fire.at, alertname: c.alert, exp_alerts: [expected] }] },
        { name: `${c.alert} stays quiet`, interval: '1m', input_series: series(c.quiet.series), alert_rule_test: [{ eval_time: c.quiet.at, alertname: c.alert, exp_alerts: [] }] },
      ];
    });
    const file = path.join(dir, 'svc-alerts.test.yml');
    writeFileSync(file, YAML.stringify({ rule_files: [path.join(ROOT, RULES_FILE)], evaluation_interval: '1m', tests }, { lineWidth: 0 }));
    const r = spawnSync(PROMTOOL, ['test', 'rules', file], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /SUCCESS/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
