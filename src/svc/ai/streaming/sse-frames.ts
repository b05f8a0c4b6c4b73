/**
 * What a gateway stream is made of, and its wire form. The framing is
 * exactly what OpenAI clients parse: `data: <json>\n\n` per chunk,
 * `: <text>\n\n` for comments (ignored by clients; used for the speculative
 * fallback marker) and `data: [DONE]\n\n` at the end.
 *
 * The gateway yields the `[DONE]` frame itself, and only after the request's
 * records are committed: a stream that ends without it was not acknowledged.
 */

export type SseFrame = { data: unknown } | { comment: string } | { done: true };

export const SSE_DONE = 'data: [DONE]\n\n';

/** The last frame of a completed stream (`data: [DONE]`). */
export const DONE_FRAME: SseFrame = Object.freeze({ done: true as const });

export function encodeSseFrame(frame: SseFrame): string {
  if ('done' in frame) return SSE_DONE;
  if ('comment' in frame) return `: ${frame.comment.replace(/[\r\n]+/g, ' ')}\n\n`;
  return `data: ${JSON.stringify(frame.data)}\n\n`;
}

/** The comment line sent before fallback output in speculative mode. */
export function fallbackMarker(reason: string, fallbackRoute: string): SseFrame {
  return { comment: `svc-fallback reason=${reason} route=${fallbackRoute}` };
}
