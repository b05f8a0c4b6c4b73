/** `non_empty_text@1`: the value carries text (see value-text.ts) that is not blank. */
import type { Verifier } from './verifier.ts';
import { textOf } from './value-text.ts';

export const nonEmptyTextVerifier: Verifier<{ type: 'non_empty_text' }> = {
  name: 'non_empty_text',
  version: 1,
  check(value) {
    const text = textOf(value);
    if (text === undefined) return { passed: false, reason: 'value carries no text' };
    if (text.trim().length === 0) return { passed: false, reason: 'text is blank' };
    return { passed: true };
  },
};
