/**
 * Where the text of a cached value lives, for the verifiers that look at text
 * (`non_empty_text`, `json_shape` on a model answer). A value is one of: a
 * string, `{ text }`, a chat completion (first choice's message content) or a
 * text completion (first choice's text).
 */

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** True when the value looks like an OpenAI chat or text completion. */
export function isCompletionLike(value: unknown): value is { choices: unknown[] } {
  return isRecord(value) && Array.isArray(value.choices);
}

/** The text a value carries, or undefined when it carries none. */
export function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (!isRecord(value)) return undefined;
  if (typeof value.text === 'string') return value.text;
  if (isCompletionLike(value)) {
    const first = value.choices[0];
    if (!isRecord(first)) return undefined;
    if (typeof first.text === 'string') return first.text;
    const message = first.message;
    if (isRecord(message) && typeof message.content === 'string') return message.content;
  }
  return undefined;
}

export { isRecord };
