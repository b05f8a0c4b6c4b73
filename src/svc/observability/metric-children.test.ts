import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Registry } from 'prom-client';
import { MetricChildren } from './metric-children.ts';

test('one child per label combination, made once, counting into its own series', async () => {
  const registry = new Registry();
  const counter = new Counter({ name: 'x_total', help: 'x', labelNames: ['route', 'status'], registers: [registry] });
  let made = 0;
  const children = new MetricChildren((v) => {
    made++;
    return counter.labels(...v);
  });
  children.get('/a', '2xx').inc();
  children.get('/a', '2xx').inc(2);
  children.get('/a', '5xx').inc();
  children.get('/b', '2xx').inc();
  assert.equal(made, 3);
  const values = (await counter.get()).values.map((v) => [v.labels.route, v.labels.status, v.value]);
  assert.deepEqual(values.sort(), [['/a', '2xx', 3], ['/a', '5xx', 1], ['/b', '2xx', 1]]);
});

test('label values that would join to the same text stay apart', () => {
  const children = new MetricChildren((v) => v.join('|'));
  assert.notEqual(children.get('a', 'b'), children.get('ab'));
});
