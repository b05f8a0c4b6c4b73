/**
 * The spec's `adapter` span attribute: every span of a work unit an adapter
 * creates (intake, plan, policy, execute, manifest write, ledger) names the
 * adapter, exported over OTLP to an in-process receiver; no table, stream or
 * object name appears in any span.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { checkpoint } from './checkpoint-fixtures.ts';
import { ordersTable } from './parquet-fixtures.ts';

const NAME_MARKER = 'secret-table-marker-5521';
let receiver: OtlpReceiver;
let s: TestServer;
const traces: Record<string, string> = {};

before(async () => {
  receiver = await startOtlpReceiver();
  s = await startTestServer({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
  const call = async (name: string, route: string, body: unknown) => {
    const res = await s.call('POST', route, { key: KEYS.acmeWriter, body });
    assert.ok(res.status < 300, `${name}: ${res.status} ${await res.clone().text()}`);
    await res.arrayBuffer();
    traces[name] = res.headers.get('x-svc-trace-id')!;
  };
  await call('lakehouse', '/v1/adapters/lakehouse/tables', { table: `t/${NAME_MARKER}`, bucket: 'lake', key: `${NAME_MARKER}.parquet`, body_base64: ordersTable({ rows: 10 }).toString('base64') });
  await call('stream', '/v1/adapters/stream/append', { stream: `s/${NAME_MARKER}`, bucket: 'logs', body_text: '{"ts":"2026-01-01T00:00:00Z"}\n' });
  await call('training', '/v1/adapters/training/checkpoints', { run: `r/${NAME_MARKER}`, bucket: 'ckpt', key: `${NAME_MARKER}.safetensors`, body_base64: checkpoint({ vocab: 16, hidden: 8, layers: 1, frozenLayers: 0 }, 0).toString('base64') });
  await s.app.tracing.flush();
});
after(async () => {
  await s?.close();
  await receiver?.close();
});

const spansOf = (name: string): ReceivedSpan[] => receiver.spans().filter((x) => x.traceId === traces[name]);

test('every span of an adapter work unit carries adapter=<family>, from intake to the ledger', () => {
  for (const family of ['lakehouse', 'stream', 'training']) {
    const spans = spansOf(family);
    const names = new Set(spans.map((x) => x.name));
    for (const n of ['svc.intake', 'svc.plan', 'svc.execute', 'svc.manifest.write']) assert.ok(names.has(n), `${family} lacks ${n}`);
    for (const x of spans) assert.equal(x.attributes.adapter, family, `${x.name} of ${family} lacks adapter`);
  }
});

test('no table, stream, run or object name is placed in a span', () => {
  for (const family of ['lakehouse', 'stream', 'training']) {
    for (const x of spansOf(family)) assert.ok(!JSON.stringify(x.attributes).includes(NAME_MARKER), `${x.name} of ${family} leaks a name`);
  }
});
