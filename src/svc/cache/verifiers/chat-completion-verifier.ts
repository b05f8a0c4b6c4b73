/**
 * `chat_completion@1`: the value is a well-formed OpenAI-compatible chat
 * completion a client can use: at least one choice, each with an assistant
 * message that has non-blank content or tool calls, and a finish reason that
 * is not an error or a truncation of an empty answer.
 */
import type { Verifier } from './verifier.ts';
import { isRecord } from './value-text.ts';

const ACCEPTED_FINISH = new Set(['stop', 'length', 'tool_calls', 'function_call', 'content_filter', null, undefined]);

export const chatCompletionVerifier: Verifier<{ type: 'chat_completion' }> = {
  name: 'chat_completion',
  version: 1,
  check(value) {
    if (!isRecord(value)) return { passed: false, reason: 'value is not an object' };
    if (!Array.isArray(value.choices) || value.choices.length === 0) return { passed: false, reason: 'no choices' };
    for (const choice of value.choices) {
      if (!isRecord(choice) || !isRecord(choice.message)) return { passed: false, reason: 'a choice has no message' };
      const { content, tool_calls: toolCalls, role } = choice.message;
      if (role !== undefined && role !== 'assistant') return { passed: false, reason: 'message role is not assistant' };
      const hasText = typeof content === 'string' && content.trim().length > 0;
      const hasTools = Array.isArray(toolCalls) && toolCalls.length > 0;
      if (!hasText && !hasTools) return { passed: false, reason: 'empty assistant message' };
      if (!ACCEPTED_FINISH.has(choice.finish_reason as string | null | undefined)) return { passed: false, reason: 'unexpected finish_reason' };
    }
    return { passed: true };
  },
};
