/**
 * The in-process `PolicyEvaluator`: holds the compiled active bundle and
 * swaps it atomically on publish, reload or a bundle switch. Evaluation is
 * synchronous and allocation-light (docs/policy.md, bench/suites/policy.ts).
 * If evaluation itself fails, the decision is a deny naming the failure, so
 * enforce mode fails closed.
 */
import type { PolicyBundle } from './bundle.ts';
import { type CompiledBundle, compileBundle } from './compile-bundle.ts';
import { evaluateCompiled } from './evaluate.ts';
import type { BundleRef, PolicyDecision, PolicyEvaluator, PolicyInput } from './types.ts';

export class PolicyEngine implements PolicyEvaluator {
  #compiled: CompiledBundle;
  /** Evaluations that failed (and were denied), by request mode: the critical alert's input. */
  readonly #unavailable = { observe: 0, enforce: 0 };

  constructor(initial: PolicyBundle) {
    this.#compiled = compileBundle(initial);
  }

  /** Compiles first, then swaps, so in-flight evaluations never see a half-loaded bundle. */
  activate(bundle: PolicyBundle): void {
    this.#compiled = compileBundle(bundle);
  }

  activeBundle(): BundleRef {
    return this.#compiled.bundle.ref;
  }

  /** The active bundle with its policies (for `GET` routes and reload reports). */
  active(): PolicyBundle {
    return this.#compiled.bundle;
  }

  evaluate(input: PolicyInput): PolicyDecision {
    const compiled = this.#compiled;
    try {
      return evaluateCompiled(compiled, input);
    } catch (err) {
      this.#unavailable[input.mode === 'observe' ? 'observe' : 'enforce']++;
      return unavailableDecision(compiled.bundle.ref, err);
    }
  }

  /** How many evaluations failed since start, by mode (exported as svc_policy_evaluation_unavailable_total). */
  unavailableCounts(): Readonly<{ observe: number; enforce: number }> {
    return { ...this.#unavailable };
  }
}

/** The fail-closed decision used when no evaluation could be made. */
export function unavailableDecision(bundle: BundleRef, cause: unknown): PolicyDecision {
  const why = cause instanceof Error ? cause.name : 'unknown failure';
  return {
    allow: false,
    reasons: [`policy evaluation unavailable (${why}); failing closed`],
    matched_policy_ids: [],
    obligations: [],
    bundle,
    guarantee: 'evaluation_unavailable',
  };
}
