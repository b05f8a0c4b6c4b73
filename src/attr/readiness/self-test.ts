/**
 * The start-up self-test behind the certification report and the
 * source-grounded response receipt. It exercises the real engine and the real
 * verifiers on this deployment's corpus:
 *
 * - a known answer (the text of the first chunk of the first corpus source,
 *   verbatim, asked as that source's title) must come back `ready`, verify with
 *   `production_display_ready`, pass source-grounding acceptance, and its
 *   footer must verify standalone against the exact display text;
 * - attributing it twice must give the same footer hash (determinism);
 * - a footer with one forged verification handle must fail verification;
 * - an answer the corpus cannot support must come back `blocked`;
 * - a negative revenue must be rejected.
 *
 * Nothing here is written to the audit log: these are not client requests.
 */
import { canonicalSha256, sha256Hex } from '../../core/hashing.ts';
import { AttrError } from '../errors.ts';
import {
  verifyAttributionResponse,
  verifySourceFooter,
  type AttributionEngine,
  type AttributionResponse,
  type Corpus,
  type FooterVerificationReport,
} from '../engine/index.ts';
import type { CheckResult } from './artifact-schemas.ts';
import type { TrustStore } from '../trust-store/trust-store-schema.ts';

/** An answer no registered source supports; the engine must block it. */
export const UNSUPPORTED_PROBE_ANSWER = 'The lighthouse keepers of Saturn elected a purple walrus as their chancellor in 1642.';
const SELF_TEST_REVENUE = '10.00';

export interface SelfTestResult {
  passed: boolean;
  checks: CheckResult[];
  /** The known-answer response and how it verified (absent when attribution itself failed). */
  grounded?: {
    prompt: string;
    answer: string;
    response: AttributionResponse;
    productionDisplayReady: boolean;
    acceptanceStatus: string;
  };
}

export interface SelfTestContext {
  operator: string;
  instanceId: string;
  createdAt: string;
  /** Set when the deployment signs footers: they must then verify against it, signature included. */
  trustStore?: TrustStore;
}

/**
 * A footer passes standalone verification when it verifies; in a signing deployment it must also be ready
 * for public reliance (signature checked against the trust store).
 */
function footerPassed(report: FooterVerificationReport, trustStore: TrustStore | undefined): boolean {
  return report.status === 'passed' && (trustStore === undefined || report.public_reliance_ready);
}

export function runSelfTest(engine: AttributionEngine, corpus: Corpus, ctx: SelfTestContext): SelfTestResult {
  const checks: CheckResult[] = [];
  const record = (name: string, passed: boolean, detail: string): void => {
    checks.push({ name, status: passed ? 'passed' : 'failed', detail });
  };
  const first = corpus.sources[0];
  if (first === undefined) {
    record('known_answer_ready', false, 'corpus has no sources');
    return { passed: false, checks };
  }
  const prompt = first.title;
  const context = (n: number) => ({
    eventId: `evt_selftest_${ctx.instanceId}_${n}`,
    requestId: `req_selftest_${ctx.instanceId}_${n}`,
    operator: ctx.operator,
    createdAt: ctx.createdAt,
  });

  let response: AttributionResponse;
  let answer: string;
  try {
    // Verbatim corpus text: every claim has an exact evidence span, so anything but `ready` is an engine or corpus fault.
    answer = first.chunks[0]!.text;
    response = engine.attribute({ prompt, output: answer, grossRevenue: SELF_TEST_REVENUE, context: context(1) });
  } catch (err) {
    record('known_answer_ready', false, `attribution threw ${AttrError.from(err).code}`);
    return { passed: false, checks };
  }
  record('known_answer_ready', response.status === 'ready', `status ${response.status}, ${response.audit_errors.length} audit errors`);

  const displayText = response.display.rendered_text;
  const trust = ctx.trustStore === undefined ? {} : { trustStore: ctx.trustStore };
  const verification = verifyAttributionResponse(response, { displayText, ...trust });
  const acceptanceStatus = verification.source_grounding_acceptance?.status ?? 'not_evaluated';
  record('response_verifies_for_display', verification.production_display_ready === true, `production_display_ready ${verification.production_display_ready}`);
  record('source_grounding_acceptance_passed', acceptanceStatus === 'passed', `source_grounding_acceptance.status ${acceptanceStatus}`);
  record('footer_verifies_standalone', footerPassed(verifySourceFooter(response.source_footer, { displayText, ...trust }), ctx.trustStore), 'verifySourceFooter with the exact display text');

  try {
    const again = engine.attribute({ prompt, output: answer, grossRevenue: SELF_TEST_REVENUE, context: context(1) });
    record('footer_is_deterministic', again.source_footer.footer_hash === response.source_footer.footer_hash, 'same input and context give the same footer hash');
  } catch (err) {
    record('footer_is_deterministic', false, `second attribution threw ${AttrError.from(err).code}`);
  }

  const forged = structuredClone(response.source_footer);
  const row = forged.source_rows[0];
  if (row === undefined) {
    record('forged_handle_rejected', false, 'known answer has no source rows to forge');
  } else {
    const last = row.verify.at(-1) === '0' ? '1' : '0';
    row.verify = `${row.verify.slice(0, -1)}${last}`;
    record('forged_handle_rejected', !footerPassed(verifySourceFooter(forged, { displayText, ...trust }), ctx.trustStore), 'a footer with one altered verification handle must not verify');
  }

  try {
    const blocked = engine.attribute({ prompt, output: UNSUPPORTED_PROBE_ANSWER, grossRevenue: SELF_TEST_REVENUE, context: context(2) });
    record('unsupported_answer_blocked', blocked.status === 'blocked', `status ${blocked.status}`);
  } catch (err) {
    record('unsupported_answer_blocked', false, `attribution threw ${AttrError.from(err).code}`);
  }

  try {
    engine.attribute({ prompt, output: answer, grossRevenue: '-1.00', context: context(3) });
    record('negative_revenue_rejected', false, 'a negative revenue was accepted');
  } catch (err) {
    const code = AttrError.from(err).code;
    record('negative_revenue_rejected', code === 'negative_revenue' || code === 'invalid_gross_revenue', `rejected with ${code}`);
  }

  const passed = checks.every((c) => c.status === 'passed');
  return {
    passed,
    checks,
    grounded: { prompt, answer, response, productionDisplayReady: verification.production_display_ready === true, acceptanceStatus },
  };
}

/** Hashes used by the receipt; exported so tests can recompute them. */
export function groundedHashes(grounded: NonNullable<SelfTestResult['grounded']>): { prompt: string; answer: string; response: string } {
  return { prompt: sha256Hex(grounded.prompt), answer: sha256Hex(grounded.answer), response: canonicalSha256(grounded.response) };
}
