import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { startServiceProcess, type ServiceProcess } from '../../../src/attr/smoke/service-process.ts';
import { readAuditEntries } from '../../../src/attr/smoke/smoke-http.ts';
import { parseGrossRevenue } from '../../../src/attr/engine/royalty/gross-revenue.ts';
import { parseJsonBody } from '../../../src/attr/service/json-body-parser.ts';
import { EXAMPLE_CORPUS } from '../service/run-bin.ts';

let svc: ServiceProcess;
before(async () => {
  svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS });
});
after(async () => svc.stop());

const PROMPT = 'How far do honeybees forage?';

async function post(raw: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  const res = await svc.request('/v1/attribute', { method: 'POST', auth: true, body: raw, headers: { 'content-type': 'application/json', ...headers } });
  return { status: res.status, body: await res.json() };
}

test('a lone surrogate in a claim is a 400 invalid_unicode, not a 500, and the refusal is audited', async () => {
  const before = (await readAuditEntries(svc.auditLogPath)).length;
  const raw = `{"prompt":${JSON.stringify(PROMPT)},"output":"Western honeybees usually forage within 3 kilometres of their hive \\ud800 [1].","gross_revenue":"1.00"}`;
  const res = await post(raw);
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.error.code, 'invalid_unicode');
  assert.equal(res.body.error.retryable, false);
  assert.equal(res.body.error.details.field, 'output');
  const entries = (await readAuditEntries(svc.auditLogPath)).slice(before);
  assert.deepEqual(entries.map((e) => [e.record.outcome, e.record.error_code]), [['refused', 'invalid_unicode']]);
});

test('a lone surrogate in the prompt is refused the same way', async () => {
  const res = await post('{"prompt":"bees \\udfff","gross_revenue":"1.00"}');
  assert.equal(res.status, 400);
  assert.equal(res.body.error.code, 'invalid_unicode');
  assert.equal(res.body.error.details.field, 'prompt');
});

test('a gzip-encoded body is refused with 415 unsupported_media_type', async () => {
  const res = await svc.request('/v1/attribute', {
    method: 'POST', auth: true, body: gzipSync(JSON.stringify({ prompt: PROMPT, gross_revenue: '1.00' })),
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
  });
  assert.equal(res.status, 415);
  assert.equal(((await res.json()) as any).error.code, 'unsupported_media_type');
});

test('__proto__ and constructor.prototype keys get forbidden_json_key, malformed JSON invalid_request', async () => {
  const proto = await post(`{"prompt":"x","gross_revenue":"1","__proto__":{"admin":true}}`);
  assert.equal(proto.status, 400);
  assert.equal(proto.body.error.code, 'forbidden_json_key');
  assert.equal(proto.body.error.details.key, '__proto__');
  const ctor = await post(`{"prompt":"x","gross_revenue":"1","constructor":{"prototype":{"a":1}}}`);
  assert.equal(ctor.body.error.code, 'forbidden_json_key');
  const broken = await post(`{"prompt":`);
  assert.equal(broken.status, 400);
  assert.equal(broken.body.error.code, 'invalid_request');
  assert.match(broken.body.error.message, /not valid JSON/);
});

test('revenue follows one grammar over HTTP: " 5" and "0005.50" are both refused with their reason', async () => {
  for (const [revenue, reason] of [[' 5', 'whitespace'], ['0005.50', 'leading_zeros'], ['1'.repeat(41), 'too_large'], ['1.' + '1'.repeat(19), 'too_precise'], ['+5', 'sign'], ['1e3', 'not_decimal']] as const) {
    const res = await post(JSON.stringify({ prompt: PROMPT, gross_revenue: revenue }));
    assert.equal(res.status, 400, revenue);
    assert.equal(res.body.error.code, 'invalid_gross_revenue', revenue);
    assert.equal(res.body.error.details.reason, reason, revenue);
  }
  const ok = await post(JSON.stringify({ prompt: PROMPT, gross_revenue: '5' }));
  assert.equal(ok.status, 200);
});

test('the revenue grammar, unit by unit', () => {
  assert.deepEqual(parseGrossRevenue('0'), { amount: '0.00', scale: 2 });
  assert.deepEqual(parseGrossRevenue('0.5'), { amount: '0.50', scale: 2 });
  assert.deepEqual(parseGrossRevenue('9'.repeat(21)), { amount: `${'9'.repeat(21)}.00`, scale: 2 });
  assert.throws(() => parseGrossRevenue('9'.repeat(22)), /too large/);
  assert.throws(() => parseGrossRevenue('-5'), (e: any) => e.code === 'negative_revenue');
  assert.throws(() => parseGrossRevenue('5 '), /whitespace/);
  assert.throws(() => parseGrossRevenue('.5'), /plain decimal/);
  assert.throws(() => parseGrossRevenue('5.'), /plain decimal/);
  assert.throws(() => parseGrossRevenue(''), /empty/);
});

test('parseJsonBody keeps ordinary keys named like prototypes out of trouble', () => {
  assert.deepEqual(parseJsonBody('{"constructor":"x","prototype":1}'), { constructor: 'x', prototype: 1 });
  assert.throws(() => parseJsonBody('{"a":{"b":{"__proto__":null}}}'), (e: any) => e.code === 'forbidden_json_key');
});
