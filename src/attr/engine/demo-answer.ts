/**
 * The deterministic demonstration answer used when a request carries no
 * `output`: the corpus sentences that best match the prompt (IDF-weighted
 * overlap with the prompt, within the top BM25 chunks), verbatim, in order
 * of relevance. No model is involved; the same prompt and corpus always give
 * the same answer. When nothing matches, the answer says so, and the engine
 * then blocks it as unsupported.
 */
import type { CorpusIndex } from './retrieval/corpus-index.ts';
import { contentTokens } from './text/tokenizer.ts';

export const NO_MATCH_ANSWER = 'No registered source covers this question.';
const SENTENCES = 3;
const CHUNKS = 3;

export function buildDemoAnswer(index: CorpusIndex, prompt: string): string {
  const tokens = [...new Set(contentTokens(prompt))];
  const weight = new Map(tokens.map((t) => [t, index.idf(t)]));
  const picked: Array<{ text: string; score: number; order: number }> = [];
  let order = 0;
  for (const chunk of index.candidates(tokens, CHUNKS)) {
    for (const s of chunk.sentences) {
      order++;
      if (!/[.!?]["')\]]*$/.test(s.text)) continue;
      let score = 0;
      for (const t of tokens) if (s.tokens.has(t)) score += weight.get(t)!;
      if (score > 0 && !picked.some((p) => p.text === s.text)) picked.push({ text: s.text, score, order });
    }
  }
  picked.sort((a, b) => b.score - a.score || a.order - b.order);
  const best = picked.slice(0, SENTENCES);
  return best.length === 0 ? NO_MATCH_ANSWER : best.map((p) => p.text).join(' ');
}
