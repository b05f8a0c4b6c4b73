/**
 * The upstream call: the body sent to the provider, one call to a route
 * (JSON, or a stream collected whole), and the verified call with fallback —
 * on a failed verifier (or a retryable upstream failure) the fallback route
 * is called, and its answer must pass the same verifiers.
 */
import { SvcError } from '../../errors.ts';
import type { RouteDecision } from '../routing/route-selector.ts';
import type { ChatCompletionRequest } from '../schemas/ai-requests.ts';
import type { Usage } from '../schemas/openai-shapes.ts';
import { type AnyAiRequest, type ApiProfile, chatProfile, embeddingProfile } from './api-profiles.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { type Answer, isRecord, type Prepared } from './prepared-request.ts';
import type { RequestRun } from './request-run.ts';
import { verifierFailed, verifyUpstream } from './verify-step.ts';

/** The request as the provider sees it: no `svc`, no stream fields, the routed model, compiled messages. */
export function upstreamBodyOf(profile: ApiProfile, request: AnyAiRequest, route: RouteDecision, messages: ChatCompletionRequest['messages']): Record<string, unknown> {
  const upstreamBody: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(request)) if (k !== 'svc' && k !== 'stream' && k !== 'stream_options') upstreamBody[k] = v;
  upstreamBody.model = route.model.id;
  if (profile === chatProfile) upstreamBody.messages = messages;
  if (profile === embeddingProfile) upstreamBody.encoding_format = 'float';
  return upstreamBody;
}

/** Counts a call to `route` on the run (large-model calls are a metric of their own). */
export function countUpstreamCall(d: GatewayDeps, run: RequestRun, route: RouteDecision): void {
  run.upstreamCalled = true;
  if (route.model.size_class === 'large') {
    run.largeModelCalls++;
    d.telemetry.count('svc_ai_large_model_calls_total', 1);
  }
}

/**
 * One upstream call (JSON, or a stream collected whole), counted and timed.
 * A JSON call also returns the answer's text as received (`text`).
 */
export async function callOnce(d: GatewayDeps, p: Prepared, route: RouteDecision, transport: 'json' | 'stream'): Promise<{ value: unknown; usage: Usage | undefined; text?: string }> {
  const { run, profile } = p;
  const client = d.upstreams.client(route.provider.name);
  // The upstream body already names the primary route's model; only a fallback needs a copy with its own.
  const body = route.model.id === p.upstreamBody.model ? p.upstreamBody : { ...p.upstreamBody, model: route.model.id };
  const t0 = performance.now();
  countUpstreamCall(d, run, route);
  try {
    return await d.spans.run('svc.ai.route', { work_unit_id: run.work_unit_id, model_route: route.label }, async () => {
      if (transport === 'json') {
        const { value, text } = await client.postJsonText(profile.path, body);
        const usage = isRecord(value) && isRecord(value.usage) ? (value.usage as Usage) : undefined;
        return { value, usage, text };
      }
      const assembler = profile.newAssembler();
      for await (const chunk of client.postStream(profile.path, { ...body, stream: true, stream_options: { include_usage: true } })) assembler.push(chunk);
      return { value: assembler.result(), usage: assembler.usage };
    });
  } finally {
    run.upstreamMs += performance.now() - t0;
  }
}

/** Whether the request has a fallback to turn to (a usable one, or one it named that turned out unusable). */
export function hasFallback(p: Prepared): boolean {
  return p.fallback !== undefined || p.fallbackError !== undefined;
}

/** The fallback at the moment it is needed: an unusable one the request named fails the request now, not earlier. */
export function neededFallback(p: Prepared): RouteDecision {
  if (p.fallbackError) throw p.fallbackError;
  return p.fallback!;
}

/** Upstream failures a fallback may answer instead: timeouts and retryable route failures. */
export function isRetryableUpstreamError(err: unknown): err is SvcError {
  return err instanceof SvcError && (err.code === 'backend_timeout' || (err.code === 'model_route_failed' && err.retryable));
}

export function markFallback(d: GatewayDeps, run: RequestRun, fallback: RouteDecision, reason: string): void {
  run.fallbackUsed = true;
  run.fallbackReason = reason;
  run.servedRoute = fallback;
  d.telemetry.count('svc_ai_fallbacks_total', 1, { reason: reason.split(':')[0] ?? reason });
}

/**
 * Calls the primary route and runs the required verifiers; on a failed
 * verifier (or a retryable upstream failure) calls the fallback route,
 * whose answer must pass the same verifiers. No fallback → `verifier_failed`.
 */
export async function callVerified(d: GatewayDeps, p: Prepared, transport: 'json' | 'stream'): Promise<Answer> {
  const { run } = p;
  let reason: string;
  try {
    const first = await callOnce(d, p, p.route, transport);
    run.addUsage(first.usage);
    const check = verifyUpstream(d, p, first.value);
    if (check.passed) {
      run.servedRoute = p.route;
      return { ...first, check };
    }
    if (!hasFallback(p)) throw verifierFailed(check, false);
    reason = `verifier_failed:${check.failures.join('+')}`;
  } catch (err) {
    if (!hasFallback(p) || !isRetryableUpstreamError(err)) throw err;
    reason = `upstream_error:${err.code}`;
  }
  const fallback = neededFallback(p);
  const second = await callOnce(d, p, fallback, transport);
  run.addUsage(second.usage);
  const check = verifyUpstream(d, p, second.value);
  if (!check.passed) throw verifierFailed(check, true);
  markFallback(d, run, fallback, reason);
  return { ...second, check };
}
