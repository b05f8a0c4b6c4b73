/**
 * TypeScript shapes of the OpenAI-compatible responses the gateway builds or
 * reads. Types only: upstream bodies are checked by verifiers, not trusted.
 */

export interface Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  [k: string]: unknown;
}

export interface ToolCall {
  id?: string;
  type?: string;
  function?: { name?: string; arguments?: string };
  index?: number;
}

export interface ChatChoice {
  index: number;
  message: { role: 'assistant'; content: string | null; tool_calls?: ToolCall[]; refusal?: string | null; [k: string]: unknown };
  finish_reason: string | null;
  logprobs?: unknown;
}

export interface ChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: ChatChoice[];
  usage?: Usage;
  system_fingerprint?: string | null;
  [k: string]: unknown;
}

export interface ChatCompletionChunk {
  id: string;
  object: 'chat.completion.chunk';
  created: number;
  model: string;
  choices: Array<{ index: number; delta: { role?: string; content?: string | null; tool_calls?: ToolCall[]; [k: string]: unknown }; finish_reason: string | null; logprobs?: unknown }>;
  usage?: Usage | null;
  [k: string]: unknown;
}

export interface TextCompletion {
  id: string;
  object: 'text_completion';
  created: number;
  model: string;
  choices: Array<{ index: number; text: string; finish_reason: string | null; logprobs: unknown }>;
  usage?: Usage;
  [k: string]: unknown;
}

export interface EmbeddingsResponse {
  object: 'list';
  data: Array<{ object: 'embedding'; index: number; embedding: number[] | string }>;
  model: string;
  usage?: { prompt_tokens: number; total_tokens: number };
}
