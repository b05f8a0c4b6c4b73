/**
 * Streaming responses in the four stream modes. `buffered` and
 * `non_streaming` verify the whole answer before the first chunk; `direct`
 * and `speculative` pass chunks through as they arrive and verify when the
 * stream ends (speculative turns to the fallback on a failed verifier,
 * direct records the failure).
 *
 * The first upstream byte is awaited before the result is returned, so a
 * failure to reach the provider is still an ordinary error response;
 * failures after the stream started become an in-stream error event (which
 * OpenAI clients raise as an APIError). `[DONE]` follows the commit of the
 * request's records.
 */
import { SvcError } from '../../errors.ts';
import type { RouteDecision } from '../routing/route-selector.ts';
import type { Usage } from '../schemas/openai-shapes.ts';
import type { StreamMode } from '../schemas/svc-extension.ts';
import { DONE_FRAME, type SseFrame, fallbackMarker } from '../streaming/sse-frames.ts';
import type { AiResult } from './ai-result.ts';
import { storeAnswer } from './cache-store.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { AiRequestContext } from './ports.ts';
import { isRecord, type Prepared } from './prepared-request.ts';
import { finishFailedSafely, finishRun } from './record-commit.ts';
import { metadataChunk, responseMeta, usageFrames } from './response-shaping.ts';
import { callVerified, countUpstreamCall, hasFallback, isRetryableUpstreamError, markFallback, neededFallback } from './upstream-call.ts';
import { verifierFailed, verifyUpstream } from './verify-step.ts';

export async function streamedResult(d: GatewayDeps, ctx: AiRequestContext, p: Prepared): Promise<AiResult> {
  const { run } = p;
  const mode = run.streamMode as StreamMode;
  let started = false;
  async function* frames(): AsyncGenerator<SseFrame> {
    try {
      if (mode === 'buffered' || mode === 'non_streaming') {
        const answer = await callVerified(d, p, mode === 'buffered' ? 'stream' : 'json');
        storeAnswer(d, ctx, p, answer);
        started = true;
        for (const c of p.profile.toChunks(answer.value, answer.usage, p.includeUsage)) yield { data: c };
      } else {
        yield* passThrough(d, ctx, p, mode, () => (started = true));
      }
      if (p.wantsMetadata) yield { data: metadataChunk(p) };
      await finishRun(d, ctx, run, p.begun, 'completed', null);
      yield DONE_FRAME;
    } catch (err) {
      const error = SvcError.from(err).withContext({ workUnitId: run.work_unit_id, policyBundleId: run.policyBundleId });
      await finishFailedSafely(d, ctx, run, p.begun, error);
      if (!started) throw error;
      yield { data: { error: { message: error.message, type: error.code, code: error.code, param: null, work_unit_id: run.work_unit_id, retryable: error.retryable } } };
    } finally {
      // The client went away mid-stream.
      if (!run.finished) await finishFailedSafely(d, ctx, run, p.begun, new SvcError('unavailable', 'client closed the stream'));
    }
  }
  const iterator = frames();
  const first = await iterator.next();
  async function* withFirst(): AsyncGenerator<SseFrame> {
    if (!first.done) yield first.value;
    yield* iterator;
  }
  return { kind: 'stream', frames: withFirst(), meta: responseMeta(run) };
}

/** Direct and speculative modes: chunks go to the client as they arrive; verification runs when the stream ends. */
async function* passThrough(d: GatewayDeps, ctx: AiRequestContext, p: Prepared, mode: 'direct' | 'speculative', onStarted: () => void): AsyncGenerator<SseFrame> {
  const { run, profile } = p;
  let usageChunk: Record<string, unknown> | undefined;
  const streamRoute = async function* (route: RouteDecision): AsyncGenerator<SseFrame, { value: unknown; usage: Usage | undefined }> {
    const client = d.upstreams.client(route.provider.name);
    const assembler = profile.newAssembler();
    const t0 = performance.now();
    countUpstreamCall(d, run, route);
    try {
      for await (const chunk of client.postStream(profile.path, { ...p.upstreamBody, model: route.model.id, stream: true, stream_options: { include_usage: true } })) {
        assembler.push(chunk);
        // The usage-only chunk is held back: it must be the last chunk, after any fallback output.
        if (isRecord(chunk) && Array.isArray(chunk.choices) && chunk.choices.length === 0) {
          if (isRecord(chunk.usage)) usageChunk = chunk;
          continue;
        }
        onStarted();
        yield { data: chunk };
      }
    } finally {
      run.upstreamMs += performance.now() - t0;
    }
    return { value: assembler.result(), usage: assembler.usage };
  };

  let answer: { value: unknown; usage: Usage | undefined };
  try {
    answer = yield* streamRoute(p.route);
  } catch (err) {
    if (!hasFallback(p) || !isRetryableUpstreamError(err)) throw err;
    const fallback = neededFallback(p);
    const reason = `upstream_error:${err.code}`;
    yield fallbackMarker(reason, fallback.label);
    answer = yield* streamRoute(fallback);
    run.addUsage(answer.usage);
    const check = verifyUpstream(d, p, answer.value);
    if (!check.passed) throw verifierFailed(check, true);
    markFallback(d, run, fallback, reason);
    storeAnswer(d, ctx, p, { ...answer, check });
    yield* usageFrames(p, usageChunk);
    return;
  }
  run.addUsage(answer.usage);
  let check = verifyUpstream(d, p, answer.value);
  if (check.passed) {
    run.servedRoute = p.route;
  } else if (mode === 'speculative' && hasFallback(p)) {
    const fallback = neededFallback(p);
    const reason = `verifier_failed:${check.failures.join('+')}`;
    yield fallbackMarker(reason, fallback.label);
    answer = yield* streamRoute(fallback);
    run.addUsage(answer.usage);
    check = verifyUpstream(d, p, answer.value);
    if (!check.passed) throw verifierFailed(check, true);
    markFallback(d, run, fallback, reason);
  } else if (mode === 'speculative') {
    throw verifierFailed(check, false);
  }
  // Direct mode: the answer is already with the client; the failure is recorded (manifest, metrics), never cached.
  storeAnswer(d, ctx, p, { ...answer, check });
  yield* usageFrames(p, usageChunk);
}
