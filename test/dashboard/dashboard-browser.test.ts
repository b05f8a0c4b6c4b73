/**
 * The web dashboard in a real browser: headless Chromium driven by
 * playwright-core against a seeded svc. A wrong key shows a clear error; the
 * right key shows the five sections with the report's real figures,
 * measured next to estimated; the live ledger view shows an event written
 * after the page loaded; the key never appears in a URL or in storage.
 * Skips when Chromium is absent, unless SVC_CI=1.
 * `SVC_UPDATE_SCREENSHOT=1` rewrites docs/dashboard.png.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Browser, type Page, chromium } from 'playwright-core';
import { ADMIN_KEY, KEYS } from '../helpers/server.ts';
import { type Seeded, put, seed, startSeeded } from '../reports/support.ts';

const CHROMIUM = '/usr/bin/chromium';
const skip = existsSync(CHROMIUM) ? false : process.env.SVC_CI === '1' ? false : 'Chromium not installed (apt-get install chromium); CI (SVC_CI=1) requires it';

describe('web dashboard in headless Chromium', { skip }, () => {
  let s: Seeded;
  let browser: Browser;
  let page: Page;
  const urls: string[] = [];

  before(async () => {
    s = await startSeeded('sqlite');
    await seed(s.svc);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
    page = await browser.newPage({ viewport: { width: 1280, height: 1800 } });
    page.on('request', (r) => urls.push(r.url()));
  });
  after(async () => {
    await browser?.close();
    await s?.close();
  });

  test('a wrong key shows a clear error and no data', async () => {
    await page.goto(`${s.svc.url}/dashboard`);
    await page.fill('#api-key', 'not-a-valid-key-000000000000');
    await page.click('button[type=submit]');
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.textContent('#error') ?? '', /API key was rejected \(401/);
    assert.equal(await page.isHidden('#content'), true);
  });

  test('the right key shows the five sections with the report figures, measured beside estimated', async () => {
    const report = (await (await s.svc.call('GET', '/v1/reports/dashboard')).json()) as any;
    await page.fill('#api-key', ADMIN_KEY);
    await page.click('button[type=submit]');
    await page.waitForSelector('#content:not([hidden])');
    for (const id of ['executive', 'platform', 'ai', 'data', 'security']) assert.equal(await page.isVisible(`#${id}`), true, id);
    const shown = await page.textContent('#measured [data-figure="baseline_bytes_in"]');
    assert.equal(shown, `${report.sections.executive.savings.measured.baseline_bytes_in.value.toLocaleString('en-US')} bytes`);
    assert.match(await page.textContent('#estimated') ?? '', /energy_avoided/);
    assert.match(await page.textContent('#meta') ?? '', new RegExp(report.ledger_head.event_id.slice(0, 10)));
    assert.equal(await page.locator('#explorer tbody tr').count(), 6, 'four byte objects and two AI compute manifests');
    assert.equal(await page.locator('#alerts tr').count(), 15);
    assert.match(await page.textContent('#readiness') ?? '', /embedded \(in use\): ready/);
    await page.waitForSelector('#chart svg rect');
  });

  test('the live ledger view shows an event written after the page loaded', async () => {
    // Strings run in the page (this file is type-checked without DOM types).
    await page.waitForFunction("document.getElementById('stream-state')?.textContent === 'live'");
    await put(s.svc, KEYS.acmeWriter, 'live', 'new.bin', Buffer.from('written while the page is open'));
    await page.waitForSelector('#ledger-events li[data-type="manifest.written"]', { timeout: 10_000 });
    if (process.env.SVC_UPDATE_SCREENSHOT === '1') await page.screenshot({ path: path.resolve(import.meta.dirname, '../../docs/dashboard.png'), fullPage: true });
  });

  test('the key never appears in a URL or in browser storage', async () => {
    assert.equal(urls.some((u) => u.includes(ADMIN_KEY)), false);
    const stored = await page.evaluate<string>('JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie');
    assert.equal(stored.includes(ADMIN_KEY), false);
  });
});
