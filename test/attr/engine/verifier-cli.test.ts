import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { attribute, clone, READY_ANSWER } from './fixtures.ts';

const root = new URL('../../../', import.meta.url).pathname;
const schemaDir = path.join(root, 'src/attr/schemas');
const ajv = new Ajv2020({ strict: false, allErrors: true });
const validateResponseReport = ajv.compile(JSON.parse(readFileSync(path.join(schemaDir, 'response-verification-report.schema.json'), 'utf8')));
const validateFooterReport = ajv.compile(JSON.parse(readFileSync(path.join(schemaDir, 'footer-verification-report.schema.json'), 'utf8')));
const validateResponse = ajv.compile(JSON.parse(readFileSync(path.join(schemaDir, 'attribution-response.schema.json'), 'utf8')));

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'attr-verify-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: unknown): string {
  const file = path.join(dir, name);
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

function run(bin: string, args: string[]) {
  const res = spawnSync(process.execPath, [path.join(root, 'bin', bin), ...args], { encoding: 'utf8' });
  return { code: res.status, report: res.stdout ? JSON.parse(res.stdout) : undefined, stderr: res.stderr };
}

test('the engine output conforms to the published attribution response schema', async () => {
  const r = await attribute(READY_ANSWER);
  assert.equal(validateResponse(r), true, JSON.stringify(validateResponse.errors));
});

test('response-verify exits 0 for a ready response and its report matches the schema', async () => {
  const r = await attribute(READY_ANSWER, '10.00', 11);
  const out = run('attr-service-response-verify.mjs', ['--response', write('ready.json', r), '--display-text', write('ready.txt', r.display.rendered_text)]);
  assert.equal(out.code, 0, out.stderr);
  assert.equal(validateResponseReport(out.report), true, JSON.stringify(validateResponseReport.errors));
  assert.equal(out.report.production_display_ready, true);
  assert.equal(out.report.source_grounding_acceptance.status, 'passed');
  assert.equal(out.report.source_grounding_acceptance.display_text_status, 'matched');
});

test('response-verify exits 1 for a blocked response that is still internally consistent', async () => {
  const r = await attribute('Western honeybees usually forage within 3 kilometres of their hive [3].', '10.00', 12);
  const out = run('attr-service-response-verify.mjs', ['--response', write('blocked.json', r)]);
  assert.equal(out.code, 1);
  assert.equal(validateResponseReport(out.report), true, JSON.stringify(validateResponseReport.errors));
  assert.equal(out.report.internally_consistent, true);
  assert.deepEqual(out.report.source_grounding_acceptance.unresolved_answer_citation_markers, ['[3]']);
});

test('response-verify fails a copied text that lost its footer', async () => {
  const r = await attribute(READY_ANSWER, '10.00', 13);
  const out = run('attr-service-response-verify.mjs', ['--response', write('r13.json', r), '--display-text', write('r13.txt', r.display.answer_text)]);
  assert.equal(out.code, 1);
  assert.equal(out.report.source_grounding_acceptance.display_text_status, 'mismatched');
});

test('response-verify reports a document that is not a response, with a schema-valid report', () => {
  const out = run('attr-service-response-verify.mjs', ['--response', write('junk.json', { hello: 'world' })]);
  assert.equal(out.code, 1);
  assert.equal(validateResponseReport(out.report), true, JSON.stringify(validateResponseReport.errors));
  assert.equal(out.report.integrity.schema_valid, false);
});

test('response-verify exits 2 when the response file is missing', () => {
  const out = run('attr-service-response-verify.mjs', ['--response', path.join(dir, 'nope.json')]);
  assert.equal(out.code, 2);
  assert.match(out.stderr, /cannot read response file/);
});

test('footer-verify passes an intact ready footer with its exact display text', async () => {
  const r = await attribute(READY_ANSWER, '10.00', 14);
  const out = run('attr-source-footer-verify.mjs', ['--footer', write('f14.json', r.source_footer), '--display-text', write('f14.txt', r.display.rendered_text)]);
  assert.equal(out.code, 0, JSON.stringify(out.report?.errors));
  assert.equal(validateFooterReport(out.report), true, JSON.stringify(validateFooterReport.errors));
  assert.equal(out.report.answer_rules_checked, true);
  assert.equal(out.report.checks.display_text_holds_footer, true);
});

test('footer-verify detects a tampered payout through the footer hash', async () => {
  const r = clone(await attribute(READY_ANSWER, '10.00', 15));
  r.source_footer.source_rows[0]!.payout = '9.99';
  const out = run('attr-source-footer-verify.mjs', ['--footer', write('f15.json', r.source_footer)]);
  assert.equal(out.code, 1);
  assert.equal(validateFooterReport(out.report), true);
  assert.equal(out.report.checks.row_hashes_valid, false);
  assert.equal(out.report.checks.footer_hash_valid, false);
});

test('footer-verify fails a copied text whose verification handle was stripped', async () => {
  const r = await attribute(READY_ANSWER, '10.00', 16);
  const stripped = r.display.rendered_text.replace(r.source_footer.source_rows[0]!.verify, '');
  const out = run('attr-source-footer-verify.mjs', ['--footer', write('f16.json', r), '--display-text', write('f16.txt', stripped)]);
  assert.equal(out.code, 1);
  assert.equal(out.report.checks.display_text_holds_footer, false);
  assert.ok(out.report.errors.some((e: { code: string }) => e.code === 'display_text_missing_handle'));
});

test('footer-verify fails a blocked footer even when it is intact', async () => {
  const r = await attribute('The Eiffel Tower was completed in 1889.', '10.00', 17);
  const out = run('attr-source-footer-verify.mjs', ['--footer', write('f17.json', r.source_footer)]);
  assert.equal(out.code, 1);
  assert.equal(out.report.footer_status, 'blocked');
  assert.equal(out.report.checks.status_consistent, true);
});

test('footer-verify catches a footer whose event hash was swapped', async () => {
  const r = clone(await attribute(READY_ANSWER, '10.00', 18));
  r.source_footer.event_hash = 'a'.repeat(64);
  const out = run('attr-source-footer-verify.mjs', ['--footer', write('f18.json', r.source_footer)]);
  assert.equal(out.code, 1);
  assert.equal(out.report.checks.event_binding_valid, false);
});
