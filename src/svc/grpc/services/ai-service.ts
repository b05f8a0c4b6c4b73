/**
 * svc.v1.AIService — the gRPC form of `POST /v1/chat/completions` and
 * `POST /v1/embeddings` (route ai.ts): the OpenAI-compatible body travels as
 * a Struct, the gateway does everything else, and what REST reports in the
 * `svc` object and `X-SVC-*` headers comes back as typed metadata.
 *
 * Unary methods cannot carry a server-sent-events answer, so a unary request
 * with `"stream": true` is refused before the gateway runs (no work unit, no
 * upstream call); StreamChatCompletion / StreamCompletion carry the same
 * stream as messages: `svc` first, then each SSE frame in order, `done` last
 * (sent by the gateway only after the records are committed).
 */
import { type AiResponseMeta, type AiResult, operatingPointLabel } from '../../ai/gateway/ai-result.ts';
import { ChatCompletionRequest, CompletionRequest, EmbeddingRequest } from '../../ai/schemas/ai-requests.ts';
import type { AIServiceStreamChatCompletionResponse } from '../generated/svc/v1/AIServiceStreamChatCompletionResponse.ts';
import { jsonResult } from '../mapping/json-result.ts';
import { SvcError } from '../../errors.ts';
import { validate } from '../../validation.ts';
import type { AiResponseMetadata } from '../generated/svc/v1/AiResponseMetadata.ts';
import type { AIServiceHandlers } from '../generated/svc/v1/AIService.ts';
import type { Struct, Struct__Output } from '../generated/google/protobuf/Struct.ts';
import { optional } from '../mapping/rest-body.ts';
import { fromStruct, toStruct } from '../mapping/struct.ts';
import { type GrpcRuntime, type MessageSink, serverStream, unary } from '../rpc-handlers.ts';

function requestBody(request: Struct__Output | undefined): Record<string, unknown> {
  const body = request === undefined ? {} : fromStruct(request);
  if (body.stream === true) {
    throw new SvcError('invalid_request', 'streaming answers are not offered over gRPC: send "stream": false (or leave it out), or use the REST route for server-sent events', {
      details: { param: 'stream' },
    });
  }
  return body;
}

function metadataMessage(m: AiResponseMeta): AiResponseMetadata {
  return {
    work_unit_id: m.work_unit_id,
    manifest_id: m.manifest_id,
    plan_id: m.plan_id,
    trace_id: m.trace_id,
    tenant: m.tenant,
    contract: m.contract,
    mode: m.mode,
    policy_bundle_id: m.policy_bundle_id,
    cache: m.cache,
    route: optional(m.route),
    fallback_used: m.fallback_used,
    fallback_reason: optional(m.fallback_reason),
    verifier: optional(m.verifier),
    tokens_avoided: m.tokens_avoided,
    semantic_operating_point: optional(operatingPointLabel(m.semantic_operating_point)),
  };
}

function responseOf(result: AiResult): { response: Struct; svc: AiResponseMetadata } {
  if (result.kind !== 'json') throw new SvcError('internal', 'the gateway answered a non-streaming request with a stream');
  return { response: toStruct(result.body as Record<string, unknown>), svc: metadataMessage(result.meta) };
}

/** A streaming request body: `stream` defaults to true here and may not be false. */
function streamingBody(request: Struct__Output | undefined): Record<string, unknown> {
  const body = request === undefined ? {} : fromStruct(request);
  if (body.stream === false) {
    throw new SvcError('invalid_request', 'this method streams: send "stream": true (or leave it out), or call the unary method', { details: { param: 'stream' } });
  }
  return { ...body, stream: true };
}

/** Writes a gateway stream as messages: metadata, then every SSE frame in order. */
async function writeStream(result: AiResult, sink: MessageSink<AIServiceStreamChatCompletionResponse>): Promise<void> {
  await sink.write({ svc: metadataMessage(result.meta) });
  if (result.kind !== 'stream') throw new SvcError('internal', 'the gateway answered a streaming request without a stream');
  for await (const frame of result.frames) {
    if ('done' in frame) await sink.write({ done: true });
    else if ('comment' in frame) await sink.write({ comment: frame.comment });
    else await sink.write({ chunk: toStruct(frame.data as Record<string, unknown>) });
  }
}

export function aiService(rt: GrpcRuntime): AIServiceHandlers {
  const { gateway } = rt.app.ai;
  const hot = { guarded: true };
  return {
    ChatCompletion: unary(rt, 'AIService/ChatCompletion', async (ctx, req) => {
      const body = validate(ChatCompletionRequest, requestBody(req.request)) as ChatCompletionRequest;
      return responseOf(await gateway.chat(ctx, body, { wantsMetadata: body.svc !== undefined }));
    }, hot),

    Embeddings: unary(rt, 'AIService/Embeddings', async (ctx, req) => {
      const body = validate(EmbeddingRequest, requestBody(req.request)) as EmbeddingRequest;
      return responseOf(await gateway.embeddings(ctx, body, { wantsMetadata: body.svc !== undefined }));
    }, hot),

    Completion: unary(rt, 'AIService/Completion', async (ctx, req) => {
      const body = validate(CompletionRequest, requestBody(req.request)) as CompletionRequest;
      return responseOf(await gateway.completions(ctx, body, { wantsMetadata: body.svc !== undefined }));
    }, hot),

    StreamChatCompletion: serverStream(rt, 'AIService/StreamChatCompletion', async (ctx, req, sink: MessageSink<AIServiceStreamChatCompletionResponse>) => {
      const body = validate(ChatCompletionRequest, streamingBody(req.request)) as ChatCompletionRequest;
      await writeStream(await gateway.chat(ctx, body, { wantsMetadata: body.svc !== undefined }), sink);
    }, hot),

    StreamCompletion: serverStream(rt, 'AIService/StreamCompletion', async (ctx, req, sink: MessageSink<AIServiceStreamChatCompletionResponse>) => {
      const body = validate(CompletionRequest, streamingBody(req.request)) as CompletionRequest;
      await writeStream(await gateway.completions(ctx, body, { wantsMetadata: body.svc !== undefined }), sink);
    }, hot),

    ListModels: unary(rt, 'AIService/ListModels', async (ctx) => ({ result: jsonResult(await gateway.models(ctx)) })),
  };
}
