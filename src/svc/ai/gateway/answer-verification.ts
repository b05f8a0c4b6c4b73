/**
 * The required verifiers of a gateway answer: the API's default one
 * (`chat_completion`, `non_empty_text`, `embedding_shape`), the request's
 * `svc.verification` when given, and a citation check when
 * `svc.require_citations` is set. All must pass; the first failure names
 * the fallback reason.
 */
import { runVerifier } from '../../cache/verifiers/run-verifier.ts';
import { textOf } from '../../cache/verifiers/value-text.ts';
import type { VerificationSpec } from '../../cache/verifiers/verification-spec.ts';

/** `[1]`, `[doc-3]`, `[source: …]`, `(source: …)` or a URL count as a citation. */
const CITATION = /\[(?:\d+|[A-Za-z][\w.-]*-\d+|source:[^\]]+)\]|\(source:[^)]+\)|https?:\/\/\S+/i;
export const CITATIONS_VERIFIER = 'citations@1';

export interface AnswerVerification {
  specs: VerificationSpec[];
  requireCitations: boolean;
}

export interface AnswerCheck {
  passed: boolean;
  /** `name@version` of every verifier run, joined by `+`. */
  verifier: string;
  /** The verifiers that failed. */
  failures: string[];
}

export function verifyAnswer(plan: AnswerVerification, value: unknown): AnswerCheck {
  const names: string[] = [];
  const failures: string[] = [];
  for (const spec of plan.specs) {
    const outcome = runVerifier(spec, value);
    names.push(outcome.verifier);
    if (!outcome.passed) failures.push(outcome.verifier);
  }
  if (plan.requireCitations) {
    names.push(CITATIONS_VERIFIER);
    if (!CITATION.test(textOf(value) ?? '')) failures.push(CITATIONS_VERIFIER);
  }
  return { passed: failures.length === 0, verifier: names.join('+'), failures };
}
