/**
 * Converting between streamed chunks and whole responses, for chat and text
 * completions. A stream is assembled as it passes (to verify it and store
 * it in the exact cache after it completes); a cached response is replayed
 * as chunks when the hit is for a streaming request.
 */
import type { ChatCompletion, ChatCompletionChunk, TextCompletion, ToolCall, Usage } from '../schemas/openai-shapes.ts';

type Rec = Record<string, unknown>;

function isRec(v: unknown): v is Rec {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Accumulates chat completion chunks into one chat completion. */
export class ChatChunkAssembler {
  #id = '';
  #model = '';
  #created = 0;
  #fingerprint: string | null | undefined;
  #usage: Usage | undefined;
  readonly #choices = new Map<number, { content: string; hasContent: boolean; role: string; toolCalls: ToolCall[]; finish: string | null }>();

  push(chunk: unknown): void {
    if (!isRec(chunk)) return;
    if (typeof chunk.id === 'string' && this.#id === '') this.#id = chunk.id;
    if (typeof chunk.model === 'string' && this.#model === '') this.#model = chunk.model;
    if (typeof chunk.created === 'number' && this.#created === 0) this.#created = chunk.created;
    if (chunk.system_fingerprint !== undefined) this.#fingerprint = chunk.system_fingerprint as string | null;
    if (isRec(chunk.usage)) this.#usage = chunk.usage as Usage;
    if (!Array.isArray(chunk.choices)) return;
    for (const c of chunk.choices) {
      if (!isRec(c)) continue;
      const index = typeof c.index === 'number' ? c.index : 0;
      const acc = this.#choices.get(index) ?? { content: '', hasContent: false, role: 'assistant', toolCalls: [], finish: null };
      const delta = isRec(c.delta) ? c.delta : {};
      if (typeof delta.content === 'string') {
        acc.content += delta.content;
        acc.hasContent = true;
      }
      if (Array.isArray(delta.tool_calls)) {
        for (const t of delta.tool_calls as ToolCall[]) {
          const ti = t.index ?? 0;
          const existing = acc.toolCalls[ti] ?? { id: '', type: 'function', function: { name: '', arguments: '' } };
          if (t.id) existing.id = t.id;
          if (t.type) existing.type = t.type;
          if (t.function?.name) existing.function!.name = (existing.function!.name ?? '') + t.function.name;
          if (t.function?.arguments) existing.function!.arguments = (existing.function!.arguments ?? '') + t.function.arguments;
          acc.toolCalls[ti] = existing;
        }
      }
      if (typeof c.finish_reason === 'string') acc.finish = c.finish_reason;
      this.#choices.set(index, acc);
    }
  }

  get usage(): Usage | undefined {
    return this.#usage;
  }

  result(): ChatCompletion {
    const choices = [...this.#choices.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([index, c]) => {
        const message: ChatCompletion['choices'][number]['message'] = { role: 'assistant', content: c.hasContent ? c.content : null };
        if (c.toolCalls.length > 0) message.tool_calls = c.toolCalls.filter(Boolean);
        return { index, message, finish_reason: c.finish };
      });
    const out: ChatCompletion = { id: this.#id, object: 'chat.completion', created: this.#created, model: this.#model, choices };
    if (this.#fingerprint !== undefined) out.system_fingerprint = this.#fingerprint;
    if (this.#usage) out.usage = this.#usage;
    return out;
  }
}

/** Accumulates text completion chunks into one text completion. */
export class TextChunkAssembler {
  #id = '';
  #model = '';
  #created = 0;
  #usage: Usage | undefined;
  readonly #choices = new Map<number, { text: string; finish: string | null }>();

  push(chunk: unknown): void {
    if (!isRec(chunk)) return;
    if (typeof chunk.id === 'string' && this.#id === '') this.#id = chunk.id;
    if (typeof chunk.model === 'string' && this.#model === '') this.#model = chunk.model;
    if (typeof chunk.created === 'number' && this.#created === 0) this.#created = chunk.created;
    if (isRec(chunk.usage)) this.#usage = chunk.usage as Usage;
    if (!Array.isArray(chunk.choices)) return;
    for (const c of chunk.choices) {
      if (!isRec(c)) continue;
      const index = typeof c.index === 'number' ? c.index : 0;
      const acc = this.#choices.get(index) ?? { text: '', finish: null };
      if (typeof c.text === 'string') acc.text += c.text;
      if (typeof c.finish_reason === 'string') acc.finish = c.finish_reason;
      this.#choices.set(index, acc);
    }
  }

  get usage(): Usage | undefined {
    return this.#usage;
  }

  result(): TextCompletion {
    const choices = [...this.#choices.entries()].sort((a, b) => a[0] - b[0]).map(([index, c]) => ({ index, text: c.text, finish_reason: c.finish, logprobs: null }));
    const out: TextCompletion = { id: this.#id, object: 'text_completion', created: this.#created, model: this.#model, choices };
    if (this.#usage) out.usage = this.#usage;
    return out;
  }
}

/** A whole chat completion as the chunk sequence an upstream would have streamed. */
export function chatCompletionToChunks(completion: ChatCompletion, usage: Usage | null | undefined, includeUsage: boolean): ChatCompletionChunk[] {
  const base = { id: completion.id, object: 'chat.completion.chunk' as const, created: completion.created, model: completion.model };
  const chunks: ChatCompletionChunk[] = [];
  for (const choice of completion.choices) {
    const delta: ChatCompletionChunk['choices'][number]['delta'] = { role: 'assistant', content: choice.message.content ?? '' };
    if (choice.message.tool_calls) delta.tool_calls = choice.message.tool_calls.map((t, index) => ({ ...t, index }));
    chunks.push({ ...base, choices: [{ index: choice.index, delta, finish_reason: null }] });
  }
  for (const choice of completion.choices) chunks.push({ ...base, choices: [{ index: choice.index, delta: {}, finish_reason: choice.finish_reason ?? 'stop' }] });
  if (includeUsage) chunks.push({ ...base, choices: [], usage: usage ?? null });
  return chunks;
}

/** A whole text completion as chunks. */
export function textCompletionToChunks(completion: TextCompletion, usage: Usage | null | undefined, includeUsage: boolean): Rec[] {
  const base = { id: completion.id, object: 'text_completion', created: completion.created, model: completion.model };
  const chunks: Rec[] = completion.choices.map((c) => ({ ...base, choices: [{ index: c.index, text: c.text, finish_reason: c.finish_reason ?? 'stop', logprobs: null }] }));
  if (includeUsage) chunks.push({ ...base, choices: [], usage: usage ?? null });
  return chunks;
}
