/**
 * Which actions are semantic (their output is not byte-identical to the
 * input on rehydration). The planner, the AI gateway and the evaluator's
 * `exact_bytes` guarantee all read this one list, so a transform cannot be
 * semantic in one place and exact in another.
 */
import type { PolicyInput } from './types.ts';

/** Known semantic transforms. An action is semantic if it is listed here OR its caller says `action_class: 'semantic'`. */
export const SEMANTIC_ACTIONS: ReadonlySet<string> = new Set([
  'semantic_summary',
  'semantic_dedupe',
  'semantic_cache',
  'context_compile',
  'prompt_compress',
  'embedding_dedupe',
  'lossy_compress',
  'downsample',
  'model_downgrade',
]);

/** Exact reducers: rehydration returns the original bytes. Used by rollout to keep the exact path on. */
export const EXACT_ACTIONS: ReadonlySet<string> = new Set(['hash', 'content_defined_chunk', 'dedupe', 'zstd', 'gzip', 'exact_cache', 'exact_cache_lookup']);

/**
 * Every reducer an admin can switch off by name (`disable_reducer`): the
 * exact and semantic actions above plus the AI plan's semantic cache lookup.
 * `hash` is not a reducer: it only records and always runs.
 */
export const KNOWN_REDUCERS: readonly string[] = [...new Set([...EXACT_ACTIONS, ...SEMANTIC_ACTIONS, 'semantic_cache_lookup'])].filter((a) => a !== 'hash').sort();

/** True when the action would change meaning-bearing bytes; a caller's `action_class: 'exact'` cannot override the list. */
export function isSemanticAction(input: Pick<PolicyInput, 'action' | 'action_class'>): boolean {
  return input.action_class === 'semantic' || SEMANTIC_ACTIONS.has(input.action);
}
