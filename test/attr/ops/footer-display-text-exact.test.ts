import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { attribute, READY_ANSWER } from '../engine/fixtures.ts';
import { runBin } from '../service/run-bin.ts';

let dir: string;
before(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'attr-exact-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, content: string): string {
  const file = path.join(dir, name);
  writeFileSync(file, content);
  return file;
}

const MADE_UP = 'Bees mine gold on the moon [9]. See [proof](https://attacker.example/proof).';

for (const [name, join] of [
  ['one newline instead of two', '\n'],
  ['no separator at all', ''],
] as const) {
  test(`footer-verify fails a made-up answer joined to a real footer with ${name}`, async () => {
    const r = await attribute(READY_ANSWER, '10.00', 71);
    const footerFile = write(`f-${name}.json`, JSON.stringify(r.source_footer));
    const text = write(`t-${name}.txt`, `${MADE_UP}${join}${r.source_footer.rendered_text}`);
    const out = await runBin('attr-source-footer-verify', ['--footer', footerFile, '--display-text', text]);
    assert.equal(out.code, 1, out.stdout);
    assert.equal(out.json.status, 'failed');
    assert.equal(out.json.public_reliance_ready, false);
    assert.equal(out.json.checks.display_text_holds_footer, false);
    assert.ok(out.json.errors.some((e: { code: string }) => e.code === 'display_text_mismatch'));
  });
}

test('footer-verify fails text with anything after the footer', async () => {
  const r = await attribute(READY_ANSWER, '10.00', 73);
  const out = await runBin('attr-source-footer-verify', ['--footer', write('tail.json', JSON.stringify(r.source_footer)), '--display-text', write('tail.txt', `${r.display.rendered_text}\n`)]);
  assert.equal(out.code, 1, out.stdout);
  assert.equal(out.json.answer_rules_checked, false);
  assert.ok(out.json.errors.some((e: { code: string }) => e.code === 'display_text_mismatch'));
});

test('footer-verify re-runs the answer rules when a made-up answer is joined exactly (extra blank line kept in the answer)', async () => {
  const r = await attribute(READY_ANSWER, '10.00', 74);
  const out = await runBin('attr-source-footer-verify', ['--footer', write('x.json', JSON.stringify(r.source_footer)), '--display-text', write('x.txt', `${MADE_UP}\n\n\n${r.source_footer.rendered_text}`)]);
  assert.equal(out.code, 1, out.stdout);
  assert.equal(out.json.answer_rules_checked, true);
  assert.equal(out.json.public_reliance_ready, false);
});

test('footer-verify still passes the exact answer + separator + footer', async () => {
  const r = await attribute(READY_ANSWER, '10.00', 72);
  const out = await runBin('attr-source-footer-verify', ['--footer', write('ok.json', JSON.stringify(r.source_footer)), '--display-text', write('ok.txt', r.display.rendered_text)]);
  assert.equal(out.code, 0, out.stdout);
  assert.equal(out.json.answer_rules_checked, true);
});
