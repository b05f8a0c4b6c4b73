/**
 * What differs between the three OpenAI-compatible APIs the gateway serves:
 * upstream path, default verifier, where the "question" text is, how
 * chunks assemble and replay, and how a cached value is presented. The
 * pipeline steps in this directory are written once against this interface.
 */
import type { VerificationSpec } from '../../cache/verifiers/verification-spec.ts';
import { messageText } from '../context/token-counter.ts';
import type { Capability } from '../providers/model-catalog.ts';
import type { ChatCompletionRequest, CompletionRequest, EmbeddingRequest } from '../schemas/ai-requests.ts';
import type { ChatCompletion, EmbeddingsResponse, TextCompletion, Usage } from '../schemas/openai-shapes.ts';
import { ChatChunkAssembler, TextChunkAssembler, chatCompletionToChunks, textCompletionToChunks } from '../streaming/chunk-assembly.ts';
import type { AiWorkUnitKind } from './ports.ts';

export interface ChunkAssembler {
  push(chunk: unknown): void;
  result(): unknown;
  readonly usage: Usage | undefined;
}

export type AnyAiRequest = ChatCompletionRequest | CompletionRequest | EmbeddingRequest;

export interface ApiProfile<R extends AnyAiRequest = AnyAiRequest> {
  kind: AiWorkUnitKind;
  capability: Capability;
  /** Upstream path below the provider's base URL. */
  path: string;
  /** Route name inside exact cache keys and logical references. */
  keyRoute: string;
  streamable: boolean;
  /** The text the classifier and the semantic cache look at. */
  queryText(request: R): string;
  toolsOffered(request: R): boolean;
  defaultVerification(request: R): VerificationSpec;
  newAssembler(): ChunkAssembler;
  toChunks(value: unknown, usage: Usage | null | undefined, includeUsage: boolean): unknown[];
  /** The value as sent to this client (the cache keeps one canonical form). */
  present(value: unknown, request: R): unknown;
}

function lastUserText(request: ChatCompletionRequest): string {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const m = request.messages[i]!;
    if (m.role === 'user') return messageText(m);
  }
  return '';
}

export const chatProfile: ApiProfile<ChatCompletionRequest> = {
  kind: 'ai_chat_completion',
  capability: 'chat',
  path: '/chat/completions',
  keyRoute: 'chat.completions',
  streamable: true,
  queryText: lastUserText,
  toolsOffered: (r) => Array.isArray(r.tools) && r.tools.length > 0,
  defaultVerification: () => ({ type: 'chat_completion' }),
  newAssembler: () => new ChatChunkAssembler(),
  toChunks: (value, usage, includeUsage) => chatCompletionToChunks(value as ChatCompletion, usage, includeUsage),
  present: (value) => value,
};

function promptText(prompt: CompletionRequest['prompt']): string {
  if (typeof prompt === 'string') return prompt;
  return prompt.every((p) => typeof p === 'string') ? (prompt as string[]).join('\n') : '';
}

export const completionProfile: ApiProfile<CompletionRequest> = {
  kind: 'ai_completion',
  capability: 'completions',
  path: '/completions',
  keyRoute: 'completions',
  streamable: true,
  queryText: (r) => promptText(r.prompt),
  toolsOffered: () => false,
  defaultVerification: () => ({ type: 'non_empty_text' }),
  newAssembler: () => new TextChunkAssembler(),
  toChunks: (value, usage, includeUsage) => textCompletionToChunks(value as TextCompletion, usage, includeUsage),
  present: (value) => value,
};

function inputCount(input: EmbeddingRequest['input']): number {
  if (typeof input === 'string') return 1;
  if (input.length > 0 && typeof input[0] === 'number') return 1;
  return input.length;
}

/** float32 little-endian, base64: what OpenAI sends for `encoding_format: "base64"` and the SDK decodes. */
export function vectorToBase64(vector: readonly number[]): string {
  const buf = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) buf.writeFloatLE(vector[i]!, i * 4);
  return buf.toString('base64');
}

export const embeddingProfile: ApiProfile<EmbeddingRequest> = {
  kind: 'ai_embedding',
  capability: 'embeddings',
  path: '/embeddings',
  keyRoute: 'embeddings',
  streamable: false,
  queryText: (r) => (typeof r.input === 'string' ? r.input : r.input.every((x) => typeof x === 'string') ? (r.input as string[]).join('\n') : ''),
  toolsOffered: () => false,
  defaultVerification: (r) => ({ type: 'embedding_shape', count: inputCount(r.input) }),
  newAssembler: () => {
    throw new Error('embeddings are not streamed');
  },
  toChunks: () => [],
  present: (value, request) => {
    if (request.encoding_format !== 'base64') return value;
    const v = value as EmbeddingsResponse;
    return { ...v, data: v.data.map((d) => ({ ...d, embedding: typeof d.embedding === 'string' ? d.embedding : vectorToBase64(d.embedding) })) };
  },
};
