import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SvcError } from '../../src/svc/errors.ts';
import type { ChatCompletionRequest } from '../../src/svc/ai/schemas/ai-requests.ts';
import { type Harness, MOCK_MODELS, collect, jsonBody, startHarness, streamedText } from './support/gateway-harness.ts';

function chat(content: string, extra: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest {
  return { model: MOCK_MODELS.small, messages: [{ role: 'system', content: 'You answer briefly.' }, { role: 'user', content }], ...extra };
}

describe('AI gateway (domain, mock upstream)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => h.close());

  test('a chat completion is routed upstream, verified, recorded with a plan and a compute manifest', async () => {
    const result = await h.gateway.chat(h.ctx('acme'), chat('What is a ledger?'), { wantsMetadata: true });
    assert.equal(result.kind, 'json');
    const body = jsonBody(result) as { choices: Array<{ message: { content: string } }>; svc: Record<string, unknown> };
    assert.match(body.choices[0]!.message.content, /mock-small answers/);
    assert.equal(body.svc.work_unit_id, result.meta.work_unit_id);
    assert.equal(body.svc.verifier, 'chat_completion@1');
    assert.equal(body.svc.cache, 'miss');
    const manifest = h.recorder.manifest(result.meta.work_unit_id)!;
    assert.equal(manifest.status, 'completed');
    assert.equal(manifest.result.fallback_used, false);
    assert.equal(h.recorder.starts.find((s) => s.work_unit_id === result.meta.work_unit_id)?.plan.route, 'mock/mock-small');
    assert.equal(h.mock.calls.at(-1)?.authorization, 'Bearer sk-test-not-a-real-key');
    assert.equal('svc' in h.mock.calls.at(-1)!.body, false, 'the svc extension never reaches the provider');
  });

  test('the svc object is left out unless the client asks for it', async () => {
    const result = await h.gateway.chat(h.ctx('acme'), chat('Metadata please?'), { wantsMetadata: false });
    assert.equal('svc' in (jsonBody(result) as object), false);
  });

  test('an answer passed on unchanged carries the upstream\'s own JSON text; a changed one (svc object, base64) does not', async () => {
    const plain = await h.gateway.chat(h.ctx('acme'), chat('Pass the text through?'), { wantsMetadata: false });
    assert.equal(plain.kind, 'json');
    const text = (plain as { bodyText?: string }).bodyText;
    assert.ok(text !== undefined, 'the upstream text is handed on');
    assert.deepEqual(JSON.parse(text), jsonBody(plain), 'it is the JSON text of the body');
    const withSvc = await h.gateway.chat(h.ctx('acme'), chat('Pass the text through, with metadata?'), { wantsMetadata: true });
    assert.equal((withSvc as { bodyText?: string }).bodyText, undefined, 'the svc object changes the body');
    const b64 = await h.gateway.embeddings(h.ctx('acme'), { model: MOCK_MODELS.embed, input: ['gamma'], encoding_format: 'base64' }, { wantsMetadata: false });
    assert.equal((b64 as { bodyText?: string }).bodyText, undefined, 'base64 presentation changes the body');
    const hit = await h.gateway.chat(h.ctx('acme'), chat('Pass the text through?'), { wantsMetadata: false });
    assert.equal(hit.meta.cache, 'exact_hit');
    assert.equal((hit as { bodyText?: string }).bodyText, undefined, 'a hit is re-dressed for this request');
  });

  test('an identical second request is an exact hit with zero billed usage and the tokens avoided reported', async () => {
    const first = await h.gateway.chat(h.ctx('acme'), chat('Exact hit question'), { wantsMetadata: true });
    const calls = h.mock.calls.length;
    const second = await h.gateway.chat(h.ctx('acme'), chat('Exact hit question'), { wantsMetadata: true });
    assert.equal(h.mock.calls.length, calls, 'no upstream call on a hit');
    assert.equal(second.meta.cache, 'exact_hit');
    const body = jsonBody(second) as { usage: { total_tokens: number }; choices: unknown; svc: { tokens_avoided: number } };
    assert.equal(body.usage.total_tokens, 0);
    assert.equal(body.svc.tokens_avoided, (jsonBody(first) as { usage: { total_tokens: number } }).usage.total_tokens);
    assert.deepEqual(body.choices, (jsonBody(first) as { choices: unknown }).choices);
  });

  test('a change in the system prompt or temperature is a different exact key', async () => {
    await h.gateway.chat(h.ctx('acme'), chat('Keyed question'), { wantsMetadata: false });
    const other = await h.gateway.chat(h.ctx('acme'), { ...chat('Keyed question'), temperature: 0.7 }, { wantsMetadata: false });
    assert.equal(other.meta.cache, 'miss');
    const sys = await h.gateway.chat(h.ctx('acme'), { model: MOCK_MODELS.small, messages: [{ role: 'system', content: 'Be verbose.' }, { role: 'user', content: 'Keyed question' }] }, { wantsMetadata: false });
    assert.equal(sys.meta.cache, 'miss');
  });

  test('the same request from another tenant never hits the first tenant\'s entry', async () => {
    await h.gateway.chat(h.ctx('acme'), chat('Tenant isolation question'), { wantsMetadata: false });
    const other = await h.gateway.chat(h.ctx('globex'), chat('Tenant isolation question'), { wantsMetadata: false });
    assert.equal(other.meta.cache, 'miss');
  });

  test('a tenant-bound principal cannot name another tenant in the svc extension', async () => {
    await assert.rejects(h.gateway.chat(h.ctx('acme'), chat('x', { svc: { tenant: 'globex' } }), { wantsMetadata: false }), (e: SvcError) => e.code === 'tenant_forbidden');
  });

  test('a streamed request passes chunks through and ends with the usage chunk, then [DONE], when include_usage is set', async () => {
    const result = await h.gateway.chat(h.ctx('acme'), chat('Stream me', { stream: true, stream_options: { include_usage: true } }), { wantsMetadata: false });
    assert.equal(result.kind, 'stream');
    if (result.kind !== 'stream') return;
    const frames = await collect(result.frames);
    assert.deepEqual(frames.at(-1), { done: true });
    const last = frames.at(-2) as { data: { choices: unknown[]; usage: { total_tokens: number } } };
    assert.deepEqual(last.data.choices, []);
    assert.ok(last.data.usage.total_tokens > 0);
    assert.match(streamedText(frames), /mock-small answers/);
    // Stored after completion; a streaming hit replays as a stream.
    const again = await h.gateway.chat(h.ctx('acme'), chat('Stream me', { stream: true }), { wantsMetadata: false });
    assert.equal(again.meta.cache, 'exact_hit');
    if (again.kind !== 'stream') return assert.fail('expected a stream');
    assert.equal(streamedText(await collect(again.frames)), streamedText(frames));
  });

  test('a failed required verifier without a fallback model is verifier_failed and nothing is cached', async () => {
    h.mock.setBehavior(MOCK_MODELS.flaky, 'empty');
    const request = chat('Broken answer', { model: MOCK_MODELS.flaky });
    await assert.rejects(h.gateway.chat(h.ctx('acme'), request, { wantsMetadata: false }), (e: SvcError) => e.code === 'verifier_failed' && e.retryable === false && e.workUnitId !== undefined);
    const calls = h.mock.calls.length;
    await assert.rejects(h.gateway.chat(h.ctx('acme'), request, { wantsMetadata: false }), (e: SvcError) => e.code === 'verifier_failed');
    assert.equal(h.mock.calls.length, calls + 1, 'the failure was not cached');
    const failed = h.recorder.manifests.filter((m) => m.status === 'failed' && m.result.error_code === 'verifier_failed');
    assert.ok(failed.length >= 2);
  });

  test('a failed required verifier with svc.fallback_model falls back, records the reason, and caches the verified fallback', async () => {
    h.mock.setBehavior(MOCK_MODELS.flaky, 'empty');
    const request = chat('Fallback please', { model: MOCK_MODELS.flaky, svc: { fallback_model: MOCK_MODELS.large } });
    const result = await h.gateway.chat(h.ctx('acme'), request, { wantsMetadata: true });
    assert.equal(result.meta.fallback_used, true);
    assert.match(result.meta.fallback_reason ?? '', /^verifier_failed:chat_completion@1/);
    assert.equal(result.meta.route, 'mock/mock-large');
    const manifest = h.recorder.manifest(result.meta.work_unit_id)!;
    assert.equal(manifest.result.fallback_used, true);
    assert.equal(manifest.result.fallback_reason, result.meta.fallback_reason);
    const again = await h.gateway.chat(h.ctx('acme'), request, { wantsMetadata: true });
    assert.equal(again.meta.cache, 'exact_hit');
  });

  test('a json_shape verifier from the extension is required of the answer', async () => {
    const ok = await h.gateway.chat(h.ctx('acme'), chat('Give JSON', { svc: { verification: { type: 'json_shape', required_keys: ['answer', 'citation'] } } }), { wantsMetadata: true });
    assert.equal(ok.meta.verifier, 'chat_completion@1+json_shape@1');
    await assert.rejects(
      h.gateway.chat(h.ctx('acme'), chat('Give JSON', { svc: { verification: { type: 'json_shape', required_keys: ['missing_key'] } } }), { wantsMetadata: false }),
      (e: SvcError) => e.code === 'verifier_failed',
    );
  });

  test('speculative streaming sends a fallback marker comment and continues with the fallback answer', async () => {
    h.mock.setBehavior(MOCK_MODELS.flaky, 'plain_text');
    const request = chat('Speculate', { model: MOCK_MODELS.flaky, stream: true, svc: { stream_mode: 'speculative', require_citations: true, fallback_model: MOCK_MODELS.large } });
    const result = await h.gateway.chat(h.ctx('acme'), request, { wantsMetadata: false });
    if (result.kind !== 'stream') return assert.fail('expected a stream');
    const frames = await collect(result.frames);
    const markerAt = frames.findIndex((f) => 'comment' in f && f.comment.startsWith('svc-fallback'));
    assert.ok(markerAt > 0, 'primary chunks were sent before the marker');
    assert.match(streamedText(frames.slice(markerAt)), /mock-large answers/);
    assert.equal(h.recorder.manifest(result.meta.work_unit_id)?.result.fallback_used, true);
  });

  test('buffered streaming verifies before sending: the client only sees the fallback answer', async () => {
    h.mock.setBehavior(MOCK_MODELS.flaky, 'empty');
    const request = chat('Buffer it', { model: MOCK_MODELS.flaky, stream: true, svc: { stream_mode: 'buffered', fallback_model: MOCK_MODELS.large } });
    const result = await h.gateway.chat(h.ctx('acme'), request, { wantsMetadata: false });
    if (result.kind !== 'stream') return assert.fail('expected a stream');
    const frames = await collect(result.frames);
    assert.equal(frames.some((f) => 'comment' in f), false);
    assert.match(streamedText(frames), /^\{"answer":"mock-large answers/);
  });

  test('direct streaming with a failing verifier records the failure and does not cache', async () => {
    h.mock.setBehavior(MOCK_MODELS.flaky, 'empty');
    const request = chat('Direct failure', { model: MOCK_MODELS.flaky, stream: true });
    const result = await h.gateway.chat(h.ctx('acme'), request, { wantsMetadata: false });
    if (result.kind !== 'stream') return assert.fail('expected a stream');
    await collect(result.frames);
    const manifest = h.recorder.manifest(result.meta.work_unit_id)!;
    assert.equal(manifest.verifier.passed, false);
    const again = await h.gateway.chat(h.ctx('acme'), request, { wantsMetadata: false });
    assert.equal(again.meta.cache, 'miss');
    if (again.kind === 'stream') await collect(again.frames);
  });

  test('high-risk tasks are not streamed before verification (non-streaming mode)', async () => {
    h.mock.setBehavior(MOCK_MODELS.flaky, 'ok');
    const result = await h.gateway.chat(h.ctx('acme'), chat('Risky', { model: MOCK_MODELS.flaky, stream: true, svc: { risk: 'high' } }), { wantsMetadata: false });
    if (result.kind !== 'stream') return assert.fail('expected a stream');
    await collect(result.frames);
    assert.equal(h.recorder.manifest(result.meta.work_unit_id)?.stream.mode, 'non_streaming');
    assert.equal(h.mock.calls.at(-1)?.stream, false);
  });

  test('an upstream 500 falls back when a fallback model exists, and is model_route_failed (retryable) when not', async () => {
    h.mock.setBehavior(MOCK_MODELS.flaky, 'status:500');
    const fb = await h.gateway.chat(h.ctx('acme'), chat('Upstream down', { model: MOCK_MODELS.flaky, svc: { fallback_model: MOCK_MODELS.small } }), { wantsMetadata: false });
    assert.equal(fb.meta.fallback_reason, 'upstream_error:model_route_failed');
    await assert.rejects(h.gateway.chat(h.ctx('acme'), chat('Upstream down 2', { model: MOCK_MODELS.flaky }), { wantsMetadata: false }), (e: SvcError) => e.code === 'model_route_failed' && e.retryable);
    h.mock.setBehavior(MOCK_MODELS.flaky, 'status:400');
    await assert.rejects(h.gateway.chat(h.ctx('acme'), chat('Bad request', { model: MOCK_MODELS.flaky }), { wantsMetadata: false }), (e: SvcError) => e.code === 'model_route_failed' && !e.retryable);
  });

  test('a malformed upstream body is model_route_failed, an unknown model is a non-retryable route failure', async () => {
    h.mock.setBehavior(MOCK_MODELS.flaky, 'malformed');
    await assert.rejects(h.gateway.chat(h.ctx('acme'), chat('Malformed', { model: MOCK_MODELS.flaky }), { wantsMetadata: false }), (e: SvcError) => e.code === 'model_route_failed');
    await assert.rejects(h.gateway.chat(h.ctx('acme'), chat('x', { model: 'gpt-unknown' }), { wantsMetadata: false }), (e: SvcError) => e.code === 'model_route_failed' && !e.retryable);
  });

  test('model "auto" sends classification to the small class and hard reasoning to the large class', async () => {
    const easy = await h.gateway.chat(h.ctx('acme'), chat('Classify the sentiment of: I love it', { model: 'auto' }), { wantsMetadata: false });
    assert.equal(easy.meta.route, 'mock/mock-small');
    assert.equal(h.recorder.manifest(easy.meta.work_unit_id)?.routing.large_model_calls_avoided, 1);
    const hard = await h.gateway.chat(h.ctx('acme'), chat('Prove that the square root of 2 is irrational, step by step.', { model: 'auto' }), { wantsMetadata: false });
    assert.equal(hard.meta.route, 'mock/mock-large');
    assert.equal(h.recorder.manifest(hard.meta.work_unit_id)?.routing.large_model_calls, 1);
  });

  test('under the semantic contract duplicated retrieval context is removed before the upstream call; under exact_bytes it is not', async () => {
    const doc = 'Retrieved document: the refund window is thirty days from delivery for all physical goods.';
    const messages = [{ role: 'system', content: `Context:\n\n${doc}\n\n${doc}` }, { role: 'user', content: 'How long is the refund window?' }];
    await h.gateway.chat(h.ctx('acme'), { model: MOCK_MODELS.small, messages, svc: { contract: 'semantic' } }, { wantsMetadata: false });
    const sent = h.mock.calls.at(-1)!.body.messages as Array<{ content: string }>;
    assert.equal(sent[0]!.content.split(doc).length - 1, 1);
    await h.gateway.chat(h.ctx('acme'), { model: MOCK_MODELS.small, messages, svc: { contract: 'exact_bytes' } }, { wantsMetadata: false });
    assert.deepEqual(h.mock.calls.at(-1)!.body.messages, messages);
  });

  test('semantic hits need the semantic contract and allow_semantic_cache, and write ai.semantic_cache.accepted', async () => {
    const svc = { contract: 'semantic' as const, allow_semantic_cache: true };
    await h.gateway.chat(h.ctx('acme'), chat('How do I reset my password?', { svc }), { wantsMetadata: false });
    // Same question once normalised (case, punctuation), different bytes: the exact cache misses, the semantic one hits.
    const exactOnly = await h.gateway.chat(h.ctx('acme'), chat('how do I reset my password'), { wantsMetadata: false });
    assert.equal(exactOnly.meta.cache, 'miss');
    const hit = await h.gateway.chat(h.ctx('acme'), chat('how do I reset my password', { svc }), { wantsMetadata: true });
    assert.equal(hit.meta.cache, 'semantic_hit');
    // The hit names the operating point it was accepted under, in the metadata and the svc object.
    const point = { source: 'default', embedder: 'lexical-align@6', threshold: 0.925 };
    assert.deepEqual(hit.meta.semantic_operating_point, point);
    assert.deepEqual(hit.kind === 'json' && (hit.body as { svc?: Record<string, unknown> }).svc?.semantic_operating_point, point);
    assert.equal(exactOnly.meta.semantic_operating_point, null);
    assert.equal(h.ledger.ofType('ai.semantic_cache.accepted').filter((e) => e.work_unit_id === hit.meta.work_unit_id).length, 1);
    const negated = await h.gateway.chat(h.ctx('acme'), chat('How can I not reset my password?', { svc }), { wantsMetadata: false });
    assert.equal(negated.meta.cache, 'miss');
  });

  test('a changed source fingerprint makes a semantic candidate stale (a miss, counted)', async () => {
    const svc = { contract: 'semantic' as const, allow_semantic_cache: true, source_fingerprints: ['doc:refunds@v1'] };
    await h.gateway.chat(h.ctx('acme'), chat('What is the refund window for returns?', { svc }), { wantsMetadata: false });
    const before = h.telemetry.get('svc_ai_semantic_cache_stale_total');
    const stale = await h.gateway.chat(h.ctx('acme'), chat("What's the refund window for returns", { svc: { ...svc, source_fingerprints: ['doc:refunds@v2'] } }), { wantsMetadata: false });
    assert.equal(stale.meta.cache, 'miss');
    assert.equal(h.telemetry.get('svc_ai_semantic_cache_stale_total'), before + 1);
  });

  test('the exact cache does not answer a new source version from the old one', async () => {
    const svc = { contract: 'semantic' as const, allow_semantic_cache: true, source_fingerprints: ['doc:shipping@v1'] };
    await h.gateway.chat(h.ctx('acme'), chat('How fast is shipping?', { svc }), { wantsMetadata: false });
    const sameText = await h.gateway.chat(h.ctx('acme'), chat('How fast is shipping?', { svc: { ...svc, source_fingerprints: ['doc:shipping@v2'] } }), { wantsMetadata: false });
    assert.equal(sameText.meta.cache, 'miss');
    const again = await h.gateway.chat(h.ctx('acme'), chat('How fast is shipping?', { svc }), { wantsMetadata: false });
    assert.equal(again.meta.cache, 'exact_hit', 'the v1 entry still answers v1 requests');
  });

  test('observe mode records a would-be exact hit but still calls the provider', async () => {
    await h.gateway.chat(h.ctx('acme'), chat('Observe me'), { wantsMetadata: false });
    const calls = h.mock.calls.length;
    const observed = await h.gateway.chat(h.ctx('acme'), chat('Observe me', { svc: { mode: 'observe' } }), { wantsMetadata: false });
    assert.equal(observed.meta.cache, 'observe_exact_hit');
    assert.equal(h.mock.calls.length, calls + 1);
  });

  test('embeddings are returned as base64 float32 when asked, and the vectors round-trip', async () => {
    const asFloat = await h.gateway.embeddings(h.ctx('acme'), { model: MOCK_MODELS.embed, input: ['alpha', 'beta'] }, { wantsMetadata: false });
    const asB64 = await h.gateway.embeddings(h.ctx('acme'), { model: MOCK_MODELS.embed, input: ['alpha', 'beta'], encoding_format: 'base64' }, { wantsMetadata: false });
    assert.equal(asB64.meta.cache, 'exact_hit', 'the encoding does not change the key');
    const floats = (jsonBody(asFloat) as { data: Array<{ embedding: number[] }> }).data[1]!.embedding;
    const b64 = (jsonBody(asB64) as { data: Array<{ embedding: string }> }).data[1]!.embedding;
    const bytes = Buffer.from(b64, 'base64');
    const decoded = Array.from({ length: bytes.length / 4 }, (_, i) => bytes.readFloatLE(i * 4));
    assert.equal(decoded.length, floats.length);
    decoded.forEach((x, i) => assert.ok(Math.abs(x - floats[i]!) < 1e-6));
  });

  test('text completions are verified as non-empty text', async () => {
    const result = await h.gateway.completions(h.ctx('acme'), { model: MOCK_MODELS.small, prompt: 'Say hi' }, { wantsMetadata: true });
    assert.equal(result.meta.verifier, 'non_empty_text@1');
    assert.match((jsonBody(result) as { choices: Array<{ text: string }> }).choices[0]!.text, /answers/);
  });

  test('models lists the configured models plus auto', () => {
    const ids = h.gateway.models(h.ctx('acme')).data.map((m) => m.id);
    assert.deepEqual(ids, ['auto', MOCK_MODELS.small, MOCK_MODELS.large, MOCK_MODELS.flaky, MOCK_MODELS.embed]);
  });
});

describe('AI gateway timeouts', () => {
  test('an upstream that never answers is backend_timeout', async () => {
    const h = await startHarness({ mock: { behaviors: { 'mock-flaky': 'hang' } }, providerExtra: { timeouts: { request_ms: 150, connect_ms: 1000, stream_idle_ms: 150 } } });
    try {
      await assert.rejects(h.gateway.chat(h.ctx('acme'), chat('hang', { model: MOCK_MODELS.flaky }), { wantsMetadata: false }), (e: SvcError) => e.code === 'backend_timeout' && e.retryable);
    } finally {
      await h.close();
    }
  });
});
