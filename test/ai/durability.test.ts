/**
 * "Nothing that was acknowledged is lost": the gateway hands an answer to
 * the client only after the request's records are committed — before a
 * JSON body, before the final `[DONE]` of a stream — and a failed commit is
 * never acknowledged.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AiComputeManifest, AiRecorder, AiRequestContext, AiWorkUnitStart } from '../../src/svc/ai/gateway/ports.ts';
import type { ChatCompletionRequest } from '../../src/svc/ai/schemas/ai-requests.ts';
import type { ExactCacheEntry, ExactCacheStore } from '../../src/svc/cache/exact/exact-cache-store.ts';
import type { SseFrame } from '../../src/svc/ai/streaming/sse-frames.ts';
import { type Harness, MOCK_MODELS, startHarness } from './support/gateway-harness.ts';

function chat(content: string, extra: Partial<ChatCompletionRequest> = {}): ChatCompletionRequest {
  return { model: MOCK_MODELS.small, messages: [{ role: 'user', content }], ...extra };
}

/** A recorder whose commits complete only when the test says so (or fail when it says so). */
class GatedRecorder implements AiRecorder {
  readonly committed: AiComputeManifest[] = [];
  #release: Array<() => void> = [];
  failWith: Error | undefined;

  async begin(_ctx: AiRequestContext, _start: AiWorkUnitStart): Promise<void> {}

  complete(_ctx: AiRequestContext, manifest: AiComputeManifest): Promise<void> {
    if (this.failWith) return Promise.reject(this.failWith);
    return new Promise((resolve) =>
      this.#release.push(() => {
        this.committed.push(manifest);
        resolve();
      }),
    );
  }

  get waiting(): number {
    return this.#release.length;
  }

  releaseAll(): void {
    const pending = this.#release;
    this.#release = [];
    for (const r of pending) r();
  }
}

/** Resolves once `predicate` holds, polling the event loop (fails the test after 2 s). */
async function until(predicate: () => boolean): Promise<void> {
  const end = Date.now() + 2000;
  while (!predicate()) {
    if (Date.now() > end) throw new Error('condition not reached in 2 s');
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe('AI gateway durability (records before acknowledgement)', () => {
  let h: Harness;
  const recorder = new GatedRecorder();
  before(async () => {
    h = await startHarness({ recorder });
  });
  after(async () => h.close());

  test('a JSON answer is not handed back until its compute manifest is committed', async () => {
    recorder.failWith = undefined;
    let answered = false;
    const pending = h.gateway.chat(h.ctx('acme'), chat('durable json'), { wantsMetadata: false }).then((r) => {
      answered = true;
      return r;
    });
    await until(() => recorder.waiting === 1);
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(answered, false, 'the answer must wait for the commit');
    recorder.releaseAll();
    const result = await pending;
    assert.equal(recorder.committed.at(-1)?.work_unit_id, result.meta.work_unit_id);
  });

  test('a stream sends its content first but [DONE] only after the commit', async () => {
    recorder.failWith = undefined;
    const result = await h.gateway.chat(h.ctx('acme'), chat('durable stream', { stream: true }), { wantsMetadata: false });
    if (result.kind !== 'stream') return assert.fail('expected a stream');
    const seen: SseFrame[] = [];
    const iterator = result.frames[Symbol.asyncIterator]();
    const reading = (async () => {
      for (let next = await iterator.next(); !next.done; next = await iterator.next()) seen.push(next.value);
    })();
    await until(() => recorder.waiting === 1);
    await new Promise((r) => setTimeout(r, 20));
    assert.ok(seen.some((f) => 'data' in f), 'content flows before the commit');
    assert.equal(seen.some((f) => 'done' in f), false, '[DONE] must wait for the commit');
    recorder.releaseAll();
    await reading;
    assert.deepEqual(seen.at(-1), { done: true });
    assert.equal(recorder.committed.at(-1)?.work_unit_id, result.meta.work_unit_id);
  });

  test('a failed commit is an error for a JSON request, never an answer', async () => {
    recorder.failWith = new Error('disk full');
    await assert.rejects(h.gateway.chat(h.ctx('acme'), chat('durable failure'), { wantsMetadata: false }));
  });

  test('a failed commit ends a stream with an error event and without [DONE]', async () => {
    recorder.failWith = new Error('disk full');
    const result = await h.gateway.chat(h.ctx('acme'), chat('durable stream failure', { stream: true }), { wantsMetadata: false });
    if (result.kind !== 'stream') return assert.fail('expected a stream');
    const frames: SseFrame[] = [];
    for await (const f of result.frames) frames.push(f);
    assert.equal(frames.some((f) => 'done' in f), false);
    const last = frames.at(-1) as { data: { error?: { code: string } } };
    assert.equal(typeof last.data.error?.code, 'string');
  });
});

describe('AI gateway cache writes', () => {
  class FailingPutStore implements ExactCacheStore {
    async get(): Promise<ExactCacheEntry | undefined> {
      return undefined;
    }
    async put(): Promise<void> {
      throw new Error('cache table unavailable');
    }
    async delete(): Promise<void> {}
  }

  test('a cache write that fails is reported but the verified answer is still served', async () => {
    const failures: unknown[] = [];
    const h = await startHarness({ exactStore: new FailingPutStore(), onCacheWriteError: (err) => failures.push(err) });
    try {
      const result = await h.gateway.chat(h.ctx('acme'), chat('cache write fails'), { wantsMetadata: false });
      assert.equal(result.kind, 'json');
      assert.equal(h.recorder.manifest(result.meta.work_unit_id)?.status, 'completed');
      assert.equal(failures.length, 1);
      assert.match(String(failures[0]), /cache table unavailable/);
    } finally {
      await h.close();
    }
  });
});
