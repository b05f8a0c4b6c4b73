import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SvcError } from '../errors.ts';
import { compileContext } from './context/context-compiler.ts';
import { countChatTokens } from './context/token-counter.ts';
import { parseProvidersSection, providersFromEnv } from './providers/provider-config.ts';
import { SseDecoder } from './providers/sse-decoder.ts';
import { classifyTask } from './routing/task-classifier.ts';
import { ChatChunkAssembler, chatCompletionToChunks } from './streaming/chunk-assembly.ts';
import { encodeSseFrame } from './streaming/sse-frames.ts';

test('the SSE decoder handles events split across chunks, CRLF and comments', () => {
  const d = new SseDecoder();
  const enc = new TextEncoder();
  assert.deepEqual(d.push(enc.encode('data: {"a"')), []);
  assert.deepEqual(d.push(enc.encode(':1}\r\n\r\n: comment\n\ndata: [DONE]\n\n')), ['{"a":1}', '[DONE]']);
});

test('SSE frames are framed exactly as OpenAI clients expect', () => {
  assert.equal(encodeSseFrame({ data: { a: 1 } }), 'data: {"a":1}\n\n');
  assert.equal(encodeSseFrame({ comment: 'svc-fallback\nx' }), ': svc-fallback x\n\n');
});

test('chat chunks assemble into a completion that replays to the same text', () => {
  const a = new ChatChunkAssembler();
  a.push({ id: 'x', model: 'm', created: 1, choices: [{ index: 0, delta: { role: 'assistant', content: 'Hel' }, finish_reason: null }] });
  a.push({ id: 'x', choices: [{ index: 0, delta: { content: 'lo' }, finish_reason: 'stop' }] });
  a.push({ id: 'x', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } });
  const done = a.result();
  assert.equal(done.choices[0]!.message.content, 'Hello');
  assert.equal(done.usage?.total_tokens, 3);
  const chunks = chatCompletionToChunks(done, done.usage, true);
  assert.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Hello');
  assert.deepEqual(chunks.at(-1)!.choices, []);
});

test('the classifier is deterministic and covers the four task classes', () => {
  assert.equal(classifyTask('What is 17 * 23?', false).task_class, 'tool_solvable');
  assert.equal(classifyTask('Look up the weather', true).task_class, 'tool_solvable');
  assert.equal(classifyTask('Classify this ticket as billing or technical', false).task_class, 'classification');
  assert.equal(classifyTask('What is the capital of France?', false).task_class, 'simple');
  assert.equal(classifyTask('Design a distributed rate limiter and explain the trade-offs', false).size_class, 'large');
  assert.deepEqual(classifyTask('Prove it', false), classifyTask('Prove it', false));
});

test('context compilation drops duplicated blocks, then old turns, then trailing retrieval blocks; the question stays', () => {
  const doc = 'A retrieved paragraph that is long enough to be deduplicated by the compiler rule.';
  const messages = [
    { role: 'system', content: `Instructions.\n\n${doc}\n\nAnother retrieved paragraph about something else entirely, also long.` },
    { role: 'user', content: 'old question '.repeat(50) },
    { role: 'assistant', content: 'old answer '.repeat(50) },
    { role: 'user', content: `${doc}\n\nWhat does the paragraph say?` },
  ];
  const dedup = compileContext(messages, { contract: 'semantic' });
  assert.equal(dedup.duplicate_blocks_removed, 1);
  assert.ok(dedup.tokens_after! < dedup.tokens_before!);
  const budget = compileContext(messages, { contract: 'semantic', maxContextTokens: 40 });
  assert.equal(budget.turns_dropped, 1);
  assert.ok(budget.blocks_trimmed >= 1);
  assert.equal(budget.messages.at(-1)!.content, 'What does the paragraph say?');
  assert.equal(budget.tokens_after, countChatTokens(budget.messages));
  assert.equal(budget.budget_met, budget.tokens_after! <= 40);
  const exact = compileContext(messages, { contract: 'exact_bytes', maxContextTokens: 10 });
  assert.deepEqual(exact.messages, messages);
  assert.equal(exact.changed, false);
});

test('provider config rejects duplicate models, keys in config and unknown fallbacks', () => {
  const base = { name: 'p', base_url: 'http://x/v1', models: [{ id: 'm', size_class: 'small' }] };
  assert.equal(parseProvidersSection([base], 't').length, 1);
  assert.throws(() => parseProvidersSection([base, { ...base, name: 'q' }], 't'), (e: SvcError) => /configured twice/.test(e.message));
  assert.throws(() => parseProvidersSection([{ ...base, api_key: 'sk-123' }], 't'), (e: SvcError) => e.code === 'invalid_request' && !e.message.includes('sk-123'));
  assert.throws(() => parseProvidersSection([{ ...base, fallback_model: 'nope' }], 't'), /unknown fallback_model/);
  assert.equal(providersFromEnv({ SVC_PROVIDERS_JSON: JSON.stringify([base]) })?.[0]?.name, 'p');
  assert.equal(providersFromEnv({}), undefined);
});
