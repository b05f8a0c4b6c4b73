/**
 * Token counts with a real tokenizer (gpt-tokenizer, o200k_base; the
 * encodings ship inside the package, nothing is downloaded). Counts are
 * used for context budgets and savings reports; the provider's own `usage`
 * stays the billing truth.
 *
 * The tokenizer is loaded on first use, not at import: its rank tables are
 * ~30 MB of the heap (200,000 strings, about half of what `svc serve` holds
 * otherwise) and take 0.2–0.6 s to build. Every full collection marks the
 * whole heap, so a svc that stores bytes and never counts tokens paid for
 * them on every mark-compact of an ingest or restore (decision 169). A svc
 * with AI providers configured warms it at start-up (`warmTokenizer`).
 */
import { createRequire } from 'node:module';
import type * as GptTokenizer from 'gpt-tokenizer';
import type { ChatMessage } from '../schemas/ai-requests.ts';

let tokenizer: Pick<typeof GptTokenizer, 'countTokens'> | undefined;

function loaded(): Pick<typeof GptTokenizer, 'countTokens'> {
  // The package's CommonJS build, loaded synchronously: counting is synchronous on the request path.
  tokenizer ??= createRequire(import.meta.url)('gpt-tokenizer') as typeof GptTokenizer;
  return tokenizer;
}

/** Loads the tokenizer now (start-up of a svc with AI providers), so the first AI request does not wait for it. */
export function warmTokenizer(): void {
  loaded();
}

/** Whether the tokenizer has been loaded (tests). */
export function tokenizerLoaded(): boolean {
  return tokenizer !== undefined;
}

/** Per-message framing overhead of chat formats (role and separators), as documented by OpenAI. */
export const MESSAGE_OVERHEAD_TOKENS = 3;
/** Tokens that prime the assistant's reply. */
export const REPLY_PRIMING_TOKENS = 3;

export function messageText(message: Pick<ChatMessage, 'content'>): string {
  const { content } = message;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content.map((part) => { const text = (part as Record<string, unknown>).text; return typeof text === 'string' ? text : ''; }).join('\n');
  }
  return '';
}

export function countTextTokens(text: string): number {
  return text.length === 0 ? 0 : loaded().countTokens(text);
}

export function countMessageTokens(message: ChatMessage): number {
  return MESSAGE_OVERHEAD_TOKENS + countTextTokens(messageText(message));
}

export function countChatTokens(messages: readonly ChatMessage[]): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const m of messages) total += countMessageTokens(m);
  return total;
}
