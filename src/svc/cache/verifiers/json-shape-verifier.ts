/**
 * `json_shape@1`: the value is a JSON object holding every `required_keys`
 * entry. For a model answer (a chat or text completion, or `{ text }`) the
 * check applies to the answer text parsed as JSON, which is how structured
 * outputs are verified before they are served or cached.
 */
import type { Verifier } from './verifier.ts';
import { isCompletionLike, isRecord, textOf } from './value-text.ts';

function targetOf(value: unknown): unknown {
  if (isCompletionLike(value) || typeof value === 'string' || (isRecord(value) && typeof value.text === 'string' && Object.keys(value).length === 1)) {
    const text = textOf(value);
    if (text === undefined) return undefined;
    try {
      return JSON.parse(text);
    } catch {
      return undefined;
    }
  }
  return value;
}

export const jsonShapeVerifier: Verifier<{ type: 'json_shape'; required_keys: string[] }> = {
  name: 'json_shape',
  version: 1,
  check(value, spec) {
    const target = targetOf(value);
    if (!isRecord(target)) return { passed: false, reason: 'not a JSON object' };
    const missing = spec.required_keys.filter((k) => !Object.hasOwn(target, k));
    if (missing.length > 0) return { passed: false, reason: `missing ${missing.length} required key(s): ${missing.join(', ')}` };
    return { passed: true };
  },
};
