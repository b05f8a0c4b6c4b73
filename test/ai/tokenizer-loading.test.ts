/**
 * The tokenizer's tables (~30 MB of heap) are loaded only by a svc that can
 * serve AI requests (decision 169): a server without AI providers never loads
 * them, one with providers loads them at start-up (not on its first request),
 * and counting works whenever it is asked for. One process per test file, so
 * the module's state starts empty here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { countTextTokens, tokenizerLoaded } from '../../src/svc/ai/context/token-counter.ts';
import { startTestServer } from '../helpers/server.ts';
import { providersJson } from '../reports/support.ts';

test('a server without AI providers does not load the tokenizer; one with providers loads it at start-up', async () => {
  assert.equal(tokenizerLoaded(), false, 'importing the counter loads nothing');
  const plain = await startTestServer({ engine: 'sqlite' });
  try {
    const put = await plain.call('POST', '/v1/s3/objects', { body: { bucket: 'bytes', key: 'k', body_text: 'bytes only' } });
    assert.equal(put.status, 201, await put.clone().text());
    assert.equal(tokenizerLoaded(), false, 'a byte workload never needs it');
  } finally {
    await plain.close();
  }
  const withAi = await startTestServer({ engine: 'sqlite', env: { SVC_PROVIDERS_JSON: providersJson('http://127.0.0.1:9'), MOCK_UPSTREAM_KEY: 'sk-test' } });
  try {
    assert.equal(tokenizerLoaded(), true, 'loaded at start-up, before any AI request');
  } finally {
    await withAi.close();
  }
});

test('counting loads the tokenizer on first use and counts with o200k_base', () => {
  assert.equal(countTextTokens(''), 0);
  assert.equal(countTextTokens('hello world'), 2);
  assert.equal(tokenizerLoaded(), true);
});
