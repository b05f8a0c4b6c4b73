/**
 * svc.v1.AIService — the gRPC form of `POST /v1/chat/completions` and
 * `POST /v1/embeddings` (route ai.ts): the OpenAI-compatible body travels as
 * a Struct, the gateway does everything else, and what REST reports in the
 * `svc` object and `X-SVC-*` headers comes back as typed metadata.
 *
 * Unary methods cannot carry a server-sent-events answer, so a request with
 * `"stream": true` is refused before the gateway runs (no work unit, no
 * upstream call); streaming stays on the REST route.
 */
import type { AiResponseMeta, AiResult } from '../../ai/gateway/ai-gateway.ts';
import { ChatCompletionRequest, EmbeddingRequest } from '../../ai/schemas/ai-requests.ts';
import { SvcError } from '../../errors.ts';
import { validate } from '../../validation.ts';
import type { AiResponseMetadata } from '../generated/svc/v1/AiResponseMetadata.ts';
import type { AIServiceHandlers } from '../generated/svc/v1/AIService.ts';
import type { Struct, Struct__Output } from '../generated/google/protobuf/Struct.ts';
import { optional } from '../mapping/rest-body.ts';
import { fromStruct, toStruct } from '../mapping/struct.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

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
  };
}

function responseOf(result: AiResult): { response: Struct; svc: AiResponseMetadata } {
  if (result.kind !== 'json') throw new SvcError('internal', 'the gateway answered a non-streaming request with a stream');
  return { response: toStruct(result.body as Record<string, unknown>), svc: metadataMessage(result.meta) };
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
  };
}
