/**
 * Context compilation under the `semantic` contract: the prompt is made
 * smaller without touching the question. Under `exact_bytes` the messages
 * pass through unchanged (and are not even tokenised).
 *
 * The rule, in order (docs/ai-gateway.md, "Context compilation"):
 * 1. Blocks are paragraphs: string content split at blank lines.
 * 2. Duplicate retrieval context: a block of 40+ characters whose
 *    white-space-normalised text already appeared earlier in the prompt is
 *    removed; a message left empty is removed.
 * 3. Budget (`max_context_tokens`): while over budget, drop the oldest
 *    conversation turn (a user message and the assistant/tool messages
 *    answering it) — never system messages, never the last user turn;
 *    then drop retrieval blocks from the end backwards: extra blocks of
 *    system messages and all but the final block of the last user message.
 * 4. The final block of the last user message (the question) is never
 *    changed. If the budget still cannot be met, the rest is sent and the
 *    manifest records `budget_met: false`.
 */
import type { ChatMessage } from '../schemas/ai-requests.ts';
import { REPLY_PRIMING_TOKENS, countChatTokens, countTextTokens, MESSAGE_OVERHEAD_TOKENS } from './token-counter.ts';

/** Shorter blocks ("Thanks.", "Yes") repeat legitimately and are never de-duplicated. */
export const MIN_DEDUPE_BLOCK_CHARS = 40;

export interface CompileOptions {
  contract: 'exact_bytes' | 'semantic';
  maxContextTokens?: number | undefined;
}

export interface CompiledContext {
  messages: ChatMessage[];
  changed: boolean;
  /** Null under `exact_bytes` (not counted, to keep the exact path cheap). */
  tokens_before: number | null;
  tokens_after: number | null;
  duplicate_blocks_removed: number;
  turns_dropped: number;
  blocks_trimmed: number;
  budget_met: boolean;
}

interface WorkingMessage {
  original: ChatMessage;
  /** Null when the content is not a plain string (kept as is). */
  blocks: string[] | null;
  isLastUser: boolean;
  removed: boolean;
}

const BLOCK_SPLIT = /\n[ \t]*\n/;

function normaliseBlock(block: string): string {
  return block.replace(/\s+/g, ' ').trim();
}

function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return i;
  return messages.length - 1;
}

function tokensOf(m: WorkingMessage): number {
  if (m.removed) return 0;
  if (m.blocks === null) return MESSAGE_OVERHEAD_TOKENS + countTextTokens(typeof m.original.content === 'string' ? m.original.content : JSON.stringify(m.original.content ?? ''));
  return MESSAGE_OVERHEAD_TOKENS + countTextTokens(m.blocks.join('\n\n'));
}

export function compileContext(messages: readonly ChatMessage[], options: CompileOptions): CompiledContext {
  if (options.contract !== 'semantic') {
    return { messages: [...messages], changed: false, tokens_before: null, tokens_after: null, duplicate_blocks_removed: 0, turns_dropped: 0, blocks_trimmed: 0, budget_met: true };
  }
  const lastUser = lastUserIndex(messages);
  const work: WorkingMessage[] = messages.map((m, i) => ({
    original: m,
    blocks: typeof m.content === 'string' ? m.content.split(BLOCK_SPLIT) : null,
    isLastUser: i === lastUser,
    removed: false,
  }));
  const tokensBefore = countChatTokens(messages);

  // 2. Duplicate retrieval context.
  const seen = new Set<string>();
  let duplicates = 0;
  for (const m of work) {
    if (m.blocks === null || (m.original.role !== 'system' && m.original.role !== 'user' && m.original.role !== 'developer')) continue;
    const kept: string[] = [];
    m.blocks.forEach((block, i) => {
      const key = normaliseBlock(block);
      const isQuestion = m.isLastUser && i === m.blocks!.length - 1;
      if (!isQuestion && key.length >= MIN_DEDUPE_BLOCK_CHARS && seen.has(key)) {
        duplicates++;
        return;
      }
      if (key.length >= MIN_DEDUPE_BLOCK_CHARS) seen.add(key);
      kept.push(block);
    });
    m.blocks = kept;
    if (kept.every((b) => b.trim() === '') && !m.isLastUser) m.removed = true;
  }

  // 3. Budget.
  let turnsDropped = 0;
  let blocksTrimmed = 0;
  const budget = options.maxContextTokens;
  let total = duplicates > 0 ? REPLY_PRIMING_TOKENS + work.reduce((s, m) => s + tokensOf(m), 0) : tokensBefore;
  if (budget !== undefined && total > budget) {
    // 3a. Oldest turns first.
    for (let i = 0; i < work.length && total > budget; i++) {
      const m = work[i]!;
      if (m.removed || m.original.role !== 'user' || m.isLastUser || i > lastUser) continue;
      let end = i + 1;
      while (end < work.length && work[end]!.original.role !== 'user' && work[end]!.original.role !== 'system' && end < lastUser) end++;
      for (let j = i; j < end; j++) {
        const t = work[j]!;
        if (t.removed || t.original.role === 'system') continue;
        total -= tokensOf(t);
        t.removed = true;
      }
      turnsDropped++;
    }
    // 3b. Retrieval blocks, last first.
    for (let i = work.length - 1; i >= 0 && total > budget; i--) {
      const m = work[i]!;
      if (m.removed || m.blocks === null) continue;
      const firstTrimmable = m.original.role === 'system' ? 1 : m.isLastUser ? 0 : Number.POSITIVE_INFINITY;
      const lastTrimmable = m.isLastUser ? m.blocks.length - 2 : m.blocks.length - 1;
      for (let b = lastTrimmable; b >= firstTrimmable && total > budget; b--) {
        const before = tokensOf(m);
        m.blocks.splice(b, 1);
        total -= before - tokensOf(m);
        blocksTrimmed++;
      }
    }
  }

  const changed = duplicates > 0 || turnsDropped > 0 || blocksTrimmed > 0;
  const out = changed
    ? work.filter((m) => !m.removed).map((m) => (m.blocks === null ? m.original : { ...m.original, content: m.blocks.join('\n\n') }))
    : [...messages];
  const tokensAfter = changed ? countChatTokens(out) : tokensBefore;
  return {
    messages: out,
    changed,
    tokens_before: tokensBefore,
    tokens_after: tokensAfter,
    duplicate_blocks_removed: duplicates,
    turns_dropped: turnsDropped,
    blocks_trimmed: blocksTrimmed,
    budget_met: budget === undefined || tokensAfter <= budget,
  };
}
