/**
 * The OpenAI-compatible routes. Thin: validate the body, call the AI
 * gateway, write the result. Errors on these routes use the OpenAI-shaped
 * body (src/svc/http/ai/openai-error-body.ts) so official SDKs raise typed
 * errors; `x-should-retry: false` marks deterministic failures.
 */
import type { FastifyError, FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { openAiErrorBody } from '../ai/openai-error-body.ts';
import { sendAiResult, wantsMetadata } from '../ai/send-ai-result.ts';
import { ChatCompletionRequest, CompletionRequest, EmbeddingRequest } from '../../ai/schemas/ai-requests.ts';
import { validate } from '../../validation.ts';
import { fromFrameworkError } from '../errors.ts';
import { ctx } from '../request-context.ts';
import { setRequestAttributes } from '../../observability/tracing.ts';

export async function aiRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  // The spec's `adapter` span attribute: the protocol adapter the request came through.
  // (Set only when spans are exported: without a span nothing reads it, and a hook is per-request work.)
  if (app.tracing.exporting) {
    server.addHook('preHandler', (_request, _reply, done) => {
      setRequestAttributes({ adapter: 'openai' });
      done();
    });
  }
  server.setErrorHandler((error: FastifyError, request, reply) => {
    const err = fromFrameworkError(error);
    app.log[err.httpStatus >= 500 ? 'error' : 'info']({ event_type: 'ai.error', error_code: err.code, trace_id: request.traceId, work_unit_id: err.workUnitId }, 'AI request failed');
    if (!err.retryable) reply.header('x-should-retry', 'false');
    if (err.workUnitId) reply.header('X-SVC-Work-Unit-ID', err.workUnitId);
    if (err.policyBundleId) reply.header('X-SVC-Policy-Bundle', err.policyBundleId);
    return reply.status(err.httpStatus).type('application/json').send(openAiErrorBody(err));
  });

  const tags = ['ai'];
  // The schema documents the body in OpenAPI; the handler validates it once, with the TypeBox validator every surface
  // shares (src/svc/validation.ts). A second, ajv, validation of the same body per request would only cost time.
  const documented = { attachValidation: true, validatorCompiler: () => () => true } as const;
  server.post('/v1/chat/completions', { schema: { body: ChatCompletionRequest, tags }, ...documented }, async (request, reply) => {
    const body = validate(ChatCompletionRequest, request.body) as ChatCompletionRequest;
    return sendAiResult(reply, await app.ai.gateway.chat(ctx(request), body, { wantsMetadata: wantsMetadata(request, body) }));
  });

  server.post('/v1/completions', { schema: { body: CompletionRequest, tags }, ...documented }, async (request, reply) => {
    const body = validate(CompletionRequest, request.body) as CompletionRequest;
    return sendAiResult(reply, await app.ai.gateway.completions(ctx(request), body, { wantsMetadata: wantsMetadata(request, body) }));
  });

  server.post('/v1/embeddings', { schema: { body: EmbeddingRequest, tags }, ...documented }, async (request, reply) => {
    const body = validate(EmbeddingRequest, request.body) as EmbeddingRequest;
    return sendAiResult(reply, await app.ai.gateway.embeddings(ctx(request), body, { wantsMetadata: wantsMetadata(request, body) }));
  });

  server.get('/v1/models', { schema: { tags } }, async (request) => app.ai.gateway.models(ctx(request)));
}
