import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { createAttributionEngine, loadCorpus } from '../engine/index.ts';
import { AttrError } from '../errors.ts';
import { encodeAttribution, fromTransportedError, summarizeAttribution, toTransportedError } from './attribution-runner.ts';

const corpus = await loadCorpus(fileURLToPath(new URL('../../../examples/attr-corpus/corpus.jsonl', import.meta.url)));
const engine = createAttributionEngine(corpus);
const context = { eventId: 'evt_t', requestId: 'req_t', operator: 'test', createdAt: '2025-01-01T00:00:00.000Z' };
const first = corpus.sources[0]!.chunks[0]!.text;

test('encodeAttribution is exactly the UTF-8 of JSON.stringify(response), alone in its ArrayBuffer', () => {
  const answers = [
    first,
    `${first} 蜜蜂は花を訪れる 🐝 — «quoted» naïve café.`,
    // The marks the encoder uses, in the answer itself: the plain path must give the same bytes.
    `${first} \u0000attr:source_footer.rendered_text\u0000 \u0000attr:display.rendered_text\u0000`,
    undefined,
  ];
  for (const output of answers) {
    const response = engine.attribute({ prompt: 'q', ...(output === undefined ? {} : { output }), grossRevenue: '3.00', context });
    const body = encodeAttribution(response);
    assert.ok(body.equals(Buffer.from(JSON.stringify(response), 'utf8')), String(output).slice(-40));
    assert.equal(body.byteOffset, 0);
    assert.equal(body.buffer.byteLength, body.byteLength, 'transferable without detaching anything else');
  }
});

test('the summary carries what the audit record and metrics read from the response', () => {
  const response = engine.attribute({ prompt: 'q', output: first, grossRevenue: '3.00', context });
  assert.deepEqual(summarizeAttribution(response), {
    status: response.status,
    eventId: 'evt_t',
    eventHash: response.event.event_hash,
    eventCreatedAt: '2025-01-01T00:00:00.000Z',
    footerHash: response.source_footer.footer_hash,
    sourceCount: response.source_footer.source_rows.length,
    auditErrorCount: response.audit_errors.length,
    answerSha256: response.event.answer_sha256,
  });
});

test('errors cross threads with their code, message and details; unexpected ones stay internal with the stack kept server-side', () => {
  const typed = fromTransportedError(toTransportedError(new AttrError('negative_revenue', 'gross_revenue must not be negative', { details: { field: 'gross_revenue' } })));
  assert.deepEqual([typed.code, typed.message, typed.details, typed.retryable], ['negative_revenue', 'gross_revenue must not be negative', { field: 'gross_revenue' }, false]);
  const unexpected = fromTransportedError(toTransportedError(new RangeError('boom')));
  assert.deepEqual([unexpected.code, unexpected.message], ['internal', 'internal error']);
  assert.match(String((unexpected.cause as Error).message), /RangeError: boom/);
  const forged = fromTransportedError({ code: 'no_such_code' as never, message: 'x', retryable: false, details: undefined, cause: undefined });
  assert.equal(forged.code, 'internal');
});
