/**
 * Verification of answers against the request's required verifiers: an
 * upstream answer (recorded on the run and counted) and a cached answer
 * (checked before it may be served; not a verifier failure of the request).
 */
import { SvcError } from '../../errors.ts';
import { type AnswerCheck, verifyAnswer } from './answer-verification.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { Prepared } from './prepared-request.ts';

/** A cached answer checked against this request's verifiers (svc.verify; not counted as a verifier failure of the request). */
export function checkCached(d: GatewayDeps, p: Prepared, value: unknown): AnswerCheck {
  return d.spans.runSync('svc.verify', { work_unit_id: p.run.work_unit_id, action: 'verify_cached_answer' }, () => verifyAnswer(p.verification, value), (c) => ({ verifier_result: c.passed ? 'passed' : 'failed' }));
}

/** An upstream answer checked; the outcome goes on the run and failures are counted per verifier. */
export function verifyUpstream(d: GatewayDeps, p: Prepared, value: unknown): AnswerCheck {
  const check = d.spans.runSync('svc.verify', { work_unit_id: p.run.work_unit_id, model_route: p.run.route?.label }, () => verifyAnswer(p.verification, value), (c) => ({ verifier_result: c.passed ? 'passed' : 'failed', action: c.verifier }));
  p.run.verifier = check.verifier;
  p.run.verifierPassed = check.passed;
  if (!check.passed) {
    p.run.verifierFailures.push(...check.failures);
    for (const f of check.failures) d.telemetry.count('svc_verifier_failures_total', 1, { verifier: f });
  }
  return check;
}

export function verifierFailed(check: AnswerCheck, afterFallback: boolean): SvcError {
  const message = afterFallback
    ? `the fallback answer also failed its required verifier (${check.failures.join(', ')})`
    : `the answer failed its required verifier (${check.failures.join(', ')}) and no fallback model is configured`;
  return new SvcError('verifier_failed', message, { retryable: false, details: { verifier: check.verifier, failed: check.failures } });
}
