/** Writes deploy/prometheus/svc-alerts.yml from the alert definitions: `./node_modules/.bin/node tools/alerts/write-prometheus-rules.ts`. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { RULES_FILE, renderPrometheusRules } from '../../src/svc/alerts/prometheus-rules.ts';

const target = path.resolve(import.meta.dirname, '../..', RULES_FILE);
writeFileSync(target, renderPrometheusRules());
process.stdout.write(`wrote ${RULES_FILE}\n`);
