/**
 * A minimal OpenAI-compatible chat-completions client for provider mode. It
 * fails closed: every way an upstream answer can be unusable maps to an
 * `AttrError` and nothing partial is returned. The raw response bytes are
 * hashed before parsing, so the event binds exactly what the provider sent.
 *
 * The API key is read from the environment variable the route names, at call
 * time, and only ever placed in the outgoing `Authorization` header.
 */
import { sha256Hex } from '../../core/hashing.ts';
import { AttrError } from '../errors.ts';
import type { ProviderRoute } from '../config/service-config.ts';
import type { ChatMessage } from './chat-messages.ts';

export interface ProviderCompletion {
  /** The generated answer text. */
  content: string;
  /** SHA-256 of the raw HTTP response body, as received. */
  responseSha256: string;
  finishReason: string;
  /** The model the provider reports (falls back to the configured model). */
  model: string;
}

export type Fetch = typeof fetch;

/** Calls `route` with `messages`; throws `AttrError` with a provider_* code on any failure. */
export async function completeChat(
  route: ProviderRoute,
  messages: readonly ChatMessage[],
  env: Readonly<Record<string, string | undefined>>,
  fetchImpl: Fetch = fetch,
): Promise<ProviderCompletion> {
  const apiKey = env[route.apiKeyEnv];
  if (apiKey === undefined || apiKey === '') {
    throw new AttrError('provider_key_missing', `provider ${route.providerId} has no API key (environment variable ${route.apiKeyEnv} is not set)`, {
      details: { provider_id: route.providerId, api_key_env: route.apiKeyEnv },
    });
  }
  const details = { provider_id: route.providerId };
  let response: Response;
  try {
    response = await fetchImpl(`${route.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Bearer ${apiKey}` },
      body: JSON.stringify({ model: route.model, messages, stream: false }),
      signal: AbortSignal.timeout(route.timeoutMs),
      redirect: 'error',
    });
  } catch (err) {
    const timedOut = (err as Error).name === 'TimeoutError';
    throw new AttrError('provider_failed', timedOut ? `provider ${route.providerId} timed out after ${route.timeoutMs} ms` : `provider ${route.providerId} is unreachable`, { details, cause: err });
  }
  const raw = await readCapped(response, route.maxResponseBytes, route.providerId);
  if (!response.ok) {
    throw new AttrError('provider_failed', `provider ${route.providerId} answered HTTP ${response.status}`, { details: { ...details, upstream_status: response.status } });
  }
  const responseSha256 = sha256Hex(raw);
  const completion = parseCompletion(raw, route);
  return { ...completion, responseSha256 };
}

/** Reads at most `limit` bytes of the body; more is `provider_output_too_large`. */
async function readCapped(response: Response, limit: number, providerId: string): Promise<Uint8Array> {
  const reader = response.body?.getReader();
  if (!reader) return new Uint8Array();
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > limit) {
        await reader.cancel();
        throw new AttrError('provider_output_too_large', `provider ${providerId} response exceeds ${limit} bytes`, { details: { provider_id: providerId, limit_bytes: limit } });
      }
      parts.push(value);
    }
  } catch (err) {
    if (err instanceof AttrError) throw err;
    throw new AttrError('provider_failed', `provider ${providerId} response could not be read`, { details: { provider_id: providerId }, cause: err });
  }
  return Buffer.concat(parts);
}

function parseCompletion(raw: Uint8Array, route: ProviderRoute): Omit<ProviderCompletion, 'responseSha256'> {
  const details = { provider_id: route.providerId };
  const malformed = (why: string): AttrError => new AttrError('provider_malformed', `provider ${route.providerId} response is malformed: ${why}`, { details });
  let body: unknown;
  try {
    body = JSON.parse(Buffer.from(raw).toString('utf8'));
  } catch {
    throw malformed('not JSON');
  }
  if (typeof body !== 'object' || body === null) throw malformed('not an object');
  const choices = (body as { choices?: unknown }).choices;
  if (!Array.isArray(choices) || choices.length === 0) throw malformed('no choices');
  const choice = choices[0] as { finish_reason?: unknown; message?: { content?: unknown; refusal?: unknown } } | null;
  if (typeof choice !== 'object' || choice === null) throw malformed('choice is not an object');
  const finishReason = choice.finish_reason;
  if (finishReason === 'content_filter' || (typeof choice.message?.refusal === 'string' && choice.message.refusal !== '')) {
    throw new AttrError('provider_filtered', `provider ${route.providerId} filtered or refused the answer`, { details: { ...details, finish_reason: String(finishReason ?? 'refusal') } });
  }
  if (finishReason === 'length') {
    // A truncated answer may end mid-claim; attributing it would certify text the provider did not finish.
    throw new AttrError('provider_output_too_large', `provider ${route.providerId} stopped at its length limit`, { details: { ...details, finish_reason: 'length' } });
  }
  if (typeof finishReason !== 'string' || finishReason === '') throw malformed('missing finish_reason');
  const content = choice.message?.content;
  if (typeof content !== 'string' || content.trim() === '') throw malformed('missing message content');
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > route.maxOutputBytes) {
    throw new AttrError('provider_output_too_large', `provider ${route.providerId} answer is ${bytes} bytes, over the ${route.maxOutputBytes}-byte limit`, { details: { ...details, limit_bytes: route.maxOutputBytes } });
  }
  const model = typeof (body as { model?: unknown }).model === 'string' ? (body as { model: string }).model : route.model;
  return { content, finishReason, model };
}
