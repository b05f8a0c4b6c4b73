/**
 * Token counts with a real tokenizer (gpt-tokenizer, o200k_base; the
 * encodings ship inside the package, nothing is downloaded). Counts are
 * used for context budgets and savings reports; the provider's own `usage`
 * stays the billing truth.
 */
import { countTokens } from 'gpt-tokenizer';
import type { ChatMessage } from '../schemas/ai-requests.ts';

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
  return text.length === 0 ? 0 : countTokens(text);
}

export function countMessageTokens(message: ChatMessage): number {
  return MESSAGE_OVERHEAD_TOKENS + countTextTokens(messageText(message));
}

export function countChatTokens(messages: readonly ChatMessage[]): number {
  let total = REPLY_PRIMING_TOKENS;
  for (const m of messages) total += countMessageTokens(m);
  return total;
}
