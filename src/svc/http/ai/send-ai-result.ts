/**
 * Writes a gateway result to a fastify reply: JSON or an SSE stream, with
 * the `X-SVC-*` headers. The HTTP side of the AI gateway (the gateway
 * itself knows nothing of transports); no decisions are made here.
 */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { setWorkUnitHeaders } from '../headers.ts';
import { type AiResult, operatingPointLabel } from '../../ai/gateway/ai-result.ts';
import { type SseFrame, encodeSseFrame } from '../../ai/streaming/sse-frames.ts';

/** True when the client asked for the `svc` response object: an `svc` extension in the body or `X-SVC-Metadata: true`. */
export function wantsMetadata(request: FastifyRequest, body: { svc?: unknown }): boolean {
  return body.svc !== undefined || String(request.headers['x-svc-metadata'] ?? '').toLowerCase() === 'true';
}

/** The gateway's frames on the wire; `[DONE]` is one of them (sent after the records are committed). */
async function* sseBytes(frames: AsyncIterable<SseFrame>): AsyncGenerator<string> {
  for await (const frame of frames) yield encodeSseFrame(frame);
}

export function sendAiResult(reply: FastifyReply, result: AiResult): FastifyReply {
  const m = result.meta;
  const semanticOperatingPoint = operatingPointLabel(m.semantic_operating_point);
  setWorkUnitHeaders(reply, { workUnitId: m.work_unit_id, manifestId: m.manifest_id, contract: m.contract, policyBundleId: m.policy_bundle_id, mode: m.mode, cache: m.cache, route: m.route, semanticOperatingPoint });
  if (result.kind === 'json') return reply.type('application/json').send(result.bodyText ?? result.body);
  reply.header('Cache-Control', 'no-cache').header('X-Accel-Buffering', 'no').type('text/event-stream; charset=utf-8');
  return reply.send(Readable.from(sseBytes(result.frames), { objectMode: false }));
}
