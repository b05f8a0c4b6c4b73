/**
 * Adversarial suite: secrets (issue 15). One run through the real server
 * sends an API key, a provider key, prompts, payloads, object keys and cache
 * values, each carrying a marker string; afterwards none of the markers may
 * appear in the log file, the ledger (payloads are recorded by hash only),
 * any response header, any exported span or the metrics text.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { ADMIN_KEY, API_KEYS_JSON, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type OtlpReceiver, startOtlpReceiver } from '../helpers/otlp-receiver.ts';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';

const MARK = {
  apiKey: 'tenant-key-MARKER-a11ce-0123456789abcdef',
  wrongKey: 'wrong-key-MARKER-b0b-0123456789abcdef',
  providerKey: 'sk-provider-MARKER-c4r0l',
  prompt: 'prompt-MARKER-d4ve',
  payload: 'payload-MARKER-e11e',
  objectKey: 'objkey-MARKER-f4ye',
  cacheValue: 'cachevalue-MARKER-9a11',
} as const;
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('no secret, prompt or payload leaves through logs, ledger, headers, spans or metrics', () => {
  let receiver: OtlpReceiver;
  let mock: MockOpenAI;
  let s: TestServer;
  const headerText: string[] = [];

  before(async () => {
    receiver = await startOtlpReceiver();
    mock = await startMockOpenAI({ models: ['mock-small', 'mock-embed'] });
    const keys = { ...(JSON.parse(API_KEYS_JSON) as object), [MARK.apiKey]: { actor: 'marker-writer', tenant: 'acme', roles: ['writer'] } };
    s = await startTestServer({
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        SVC_API_KEYS_JSON: JSON.stringify(keys),
        MOCK_UPSTREAM_KEY: MARK.providerKey,
        SVC_PROVIDERS_JSON: JSON.stringify([
          { name: 'mock', base_url: mock.url, api_key_env: 'MOCK_UPSTREAM_KEY', models: [{ id: 'mock-small', size_class: 'small' }, { id: 'mock-embed', size_class: 'small', capabilities: ['embeddings'] }] },
        ]),
      },
    });
    const call = async (key: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await s.call(method, route, { key, ...(body === undefined ? {} : { body }), headers });
      headerText.push([...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n'));
      await res.arrayBuffer();
      return res.status;
    };
    const k = MARK.apiKey;
    assert.equal(await call(MARK.wrongKey, 'GET', '/v1/plans'), 401);
    assert.equal(await call(MARK.wrongKey, 'POST', '/v1/chat/completions', { model: 'mock-small', messages: [{ role: 'user', content: MARK.prompt }] }, { authorization: `Bearer ${MARK.wrongKey}` }), 401);
    assert.equal(await call(k, 'POST', '/v1/s3/objects', { bucket: 'secrets', key: `${MARK.objectKey}.txt`, body_text: `${MARK.payload} `.repeat(50) }), 201);
    assert.equal(await call(k, 'POST', '/v1/s3/objects/get', { bucket: 'secrets', key: `${MARK.objectKey}.txt` }), 200);
    assert.equal(await call(k, 'POST', '/v1/work-units/execute', { kind: 'byte_object', logical_ref: `s3://secrets/${MARK.objectKey}`, payload: { _svc_encoding: 'base64', data: b64(MARK.payload) } }), 200);
    assert.equal(await call(k, 'POST', '/v1/chat/completions', { model: 'mock-small', messages: [{ role: 'user', content: `${MARK.prompt} what is a ledger?` }] }, { 'X-SVC-Metadata': 'true' }), 200);
    assert.equal(await call(k, 'POST', '/v1/chat/completions', { model: 'mock-small', stream: true, messages: [{ role: 'user', content: `${MARK.prompt} stream it` }] }), 200);
    assert.equal(await call(k, 'POST', '/v1/embeddings', { model: 'mock-embed', input: [`${MARK.prompt} embed`] }), 200);
    assert.equal(await call(k, 'POST', '/v1/cache/store', { key: `ck_${'7'.repeat(64)}`, value: { text: MARK.cacheValue }, verification: { type: 'non_empty_text' }, ttl_seconds: 60 }), 200);
    assert.equal(await call(k, 'POST', '/v1/cache/semantic/store', { domain: 'faq', query: `${MARK.prompt} refund window?`, source_fingerprints: ['doc:r@v1'], policy_id: 'pb_x', value: { text: MARK.cacheValue }, verification: { type: 'non_empty_text' } }), 200);
    assert.equal(await call(k, 'POST', '/v1/cache/semantic/lookup', { domain: 'faq', query: `${MARK.prompt} refund window?`, source_fingerprints: ['doc:r@v1'], policy_id: 'pb_x', freshness: { max_age_seconds: 60 } }), 200);
    assert.equal(await call(k, 'POST', '/v1/work-units', { kind: 'prompt_request', logical_ref: 'prompt://secrets/1', payload: { model: 'mock-small', messages: [{ role: 'user', content: MARK.prompt }] } }), 201);
    assert.ok(mock.calls.some((c) => c.authorization === `Bearer ${MARK.providerKey}`), 'the provider key was in play');
    await s.app.log.flush();
    await s.app.tracing.flush();
  });
  after(async () => {
    await s?.close();
    await mock?.close();
    await receiver?.close();
  });

  const assertClean = (where: string, text: string, allowed: ReadonlyArray<keyof typeof MARK> = []) => {
    assert.ok(text.length > 0, `${where} is empty: nothing was checked`);
    for (const [name, marker] of Object.entries(MARK)) {
      if (allowed.includes(name as keyof typeof MARK)) continue;
      for (const form of [marker, b64(marker).slice(0, 16)]) assert.equal(text.includes(form), false, `${name} (${form}) found in ${where}`);
    }
  };

  test('the log file', () => assertClean('the log file', readFileSync(s.app.log.file!, 'utf8')));

  test('the ledger: every event of every tenant', async () => {
    const events = await s.app.store.ledger.query({ limit: 100_000 });
    // Enough traffic that a leak would show (two events per AI request since decision 137).
    assert.ok(events.length > 15, `${events.length} events`);
    // Object keys are identifiers, not content: the audit record names the object it is about (docs/security.md).
    assertClean('the ledger', JSON.stringify(events), ['objectKey']);
  });

  test('response headers', () => assertClean('response headers', headerText.join('\n')));

  test('exported spans', () => assertClean('exported spans', receiver.bodies.join('\n')));

  test('metrics', async () => {
    const res = await s.call('GET', '/metrics', { key: ADMIN_KEY });
    assertClean('metrics', await res.text());
  });

  test('a marker the checks should find is found (the grep works)', () => {
    assert.ok(JSON.stringify(mock.calls).includes(MARK.prompt), 'the prompt reached the upstream, so its absence elsewhere means something');
    void KEYS;
  });
});
