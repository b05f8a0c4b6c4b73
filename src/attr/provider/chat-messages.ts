/**
 * The chat-style messages a provider attribution request carries, defined
 * once (request validation and OpenAPI use the same schema).
 */
import Type from 'typebox';
import type { Static } from 'typebox';

export const ChatMessageSchema = Type.Object(
  {
    role: Type.Union([Type.Literal('system'), Type.Literal('user'), Type.Literal('assistant')]),
    content: Type.String(),
  },
  { additionalProperties: false },
);
export type ChatMessage = Static<typeof ChatMessageSchema>;

/**
 * The prompt an attribution is recorded against: the last user message (the
 * question being answered). Falls back to every message joined when no user
 * message exists, so the prompt hash always covers what was asked.
 */
export function promptOf(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'user') return m.content;
  }
  return messages.map((m) => m.content).join('\n');
}
