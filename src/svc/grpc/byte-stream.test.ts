import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Rehydration } from '../exact-bytes/rehydrate.ts';
import { MAX_DATA_MESSAGE_BYTES, writeBytes } from './byte-stream.ts';
import type { MessageSink } from './rpc-handlers.ts';

function rehydrationOf(chunks: Uint8Array[]): Rehydration & { returned: () => boolean } {
  let returned = false;
  const size = chunks.reduce((n, c) => n + c.byteLength, 0);
  async function* stream() {
    try {
      for (const c of chunks) yield c;
    } finally {
      returned = true;
    }
  }
  return { size, range: null, contentLength: size, stream: stream(), returned: () => returned };
}

function collectingSink(failAfter = Number.POSITIVE_INFINITY): MessageSink<{ data: Uint8Array }> & { messages: Uint8Array[] } {
  const messages: Uint8Array[] = [];
  return {
    messages,
    signal: new AbortController().signal,
    async write(m) {
      if (messages.length >= failAfter) throw new Error('client went away');
      messages.push(m.data);
    },
  };
}

describe('writeBytes', () => {
  test('splits chunks larger than the message limit and keeps every byte in order', async () => {
    const big = randomBytes(MAX_DATA_MESSAGE_BYTES * 2 + 123);
    const small = randomBytes(10);
    const sink = collectingSink();
    await writeBytes(sink, rehydrationOf([big, small]), (data) => ({ data }));
    assert.ok(sink.messages.every((m) => m.byteLength <= MAX_DATA_MESSAGE_BYTES));
    assert.deepEqual(sink.messages.map((m) => m.byteLength), [MAX_DATA_MESSAGE_BYTES, MAX_DATA_MESSAGE_BYTES, 123, 10]);
    assert.deepEqual(Buffer.concat(sink.messages), Buffer.concat([big, small]));
  });

  test('a failed write stops the read and releases the rehydration stream', async () => {
    const r = rehydrationOf([randomBytes(10), randomBytes(10), randomBytes(10)]);
    await assert.rejects(writeBytes(collectingSink(1), r, (data) => ({ data })), /client went away/);
    assert.equal(r.returned(), true);
  });
});
