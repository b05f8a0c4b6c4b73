/**
 * Standalone footer verification (`attr-source-footer-verify`): works from
 * the public footer alone, without the private response or event. Checks
 * row hashes, evidence span hashes, verification handles, the footer hash,
 * that everything is bound to one event id and hash, and that the footer's
 * status follows from the rules it can re-run. With a copied display text it
 * also checks that the text still holds the exact footer and every handle,
 * and re-runs the answer rules on the answer part of that text.
 * It passes only for an intact footer whose status is `ready`.
 */
import { Compile } from 'typebox/compile';
import { SourceFooterSchema, type AuditError, type SourceFooter } from '../schemas/attribution-response.ts';
import { FOOTER_VERIFICATION_SCHEMA_ID, type FooterVerificationReport } from '../schemas/footer-verification-report.ts';
import { footerHash } from '../footer/footer-hashes.ts';
import { renderFooter } from '../footer/render-footer.ts';
import { DISPLAY_SEPARATOR } from '../engine/assembly/build-response.ts';
import { claimUnits } from '../engine/claims/claim-units.ts';
import { effectivePolicy } from './acceptance-policy.ts';
import { scanAnswer } from './answer-scan.ts';
import { auditError, type AuditErrorCode } from './audit-error-codes.ts';
import { signatureFinding } from '../footer/footer-signature.ts';
import type { TrustStore } from '../trust-store/trust-store-schema.ts';
import { evaluateDisplayRules } from './display-rules.ts';
import { rowFacts } from './rules/source-row-checks.ts';
import { footerOutcomeMatches } from './status-consistency.ts';

export type { FooterVerificationReport } from '../schemas/footer-verification-report.ts';

const checkFooter = Compile(SourceFooterSchema);

/** The answer part of a copied display text: everything before the separator and the exact footer. */
function answerFromDisplayText(copied: string, renderedFooter: string): string | undefined {
  const at = copied.lastIndexOf(`${DISPLAY_SEPARATOR}${renderedFooter}`);
  if (at < 0 || at + DISPLAY_SEPARATOR.length + renderedFooter.length !== copied.length) return undefined;
  return copied.slice(0, at);
}

export interface FooterVerifyOptions {
  /** Copied display text that must be exactly answer + separator + footer. */
  displayText?: string;
  /** The deployment trust store: the footer's signature must verify under one of its keys. */
  trustStore?: TrustStore;
}

/**
 * `status: passed`: the footer is intact, ready, consistent and (with a trust
 * store) signed by a trusted key. `public_reliance_ready` additionally needs
 * that signature check: without a trust store nobody can tell the operator's
 * footer from one rebuilt elsewhere with the same URIs (docs/decisions/136).
 */
export function verifySourceFooter(input: unknown, opts: FooterVerifyOptions = {}): FooterVerificationReport {
  if (!checkFooter.Check(input)) {
    const obj = (typeof input === 'object' && input !== null ? input : {}) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    return {
      schema: FOOTER_VERIFICATION_SCHEMA_ID, status: 'failed', public_reliance_ready: false,
      footer_status: obj.status === 'ready' || obj.status === 'blocked' ? obj.status : null,
      event_id: str(obj.event_id), event_hash: str(obj.event_hash), footer_hash: str(obj.footer_hash),
      checks: {
        schema_valid: false, row_hashes_valid: false, evidence_span_hashes_valid: false, handles_valid: false, footer_hash_valid: false,
        rendered_footer_valid: false, event_binding_valid: false, status_consistent: false, display_text_holds_footer: null,
        signature_valid: opts.trustStore === undefined ? null : false,
      },
      signature: { present: false, trust_store_checked: opts.trustStore !== undefined, valid: opts.trustStore === undefined ? null : false, key_id: null, issuer: null },
      source_row_count: 0, claim_row_count: 0, verified_handle_count: 0, answer_rules_checked: false, rule_results: [],
      errors: [...checkFooter.Errors(input)].slice(0, 20).map((e) => auditError('schema_invalid', `${e.instancePath || '/'} ${e.message}`, e.instancePath || '/')),
    };
  }
  const footer = input as SourceFooter;
  const integrity: AuditError[] = [];
  const facts = rowFacts(footer);
  const rowHashesValid = facts.every((x) => x.rowHashValid);
  if (!rowHashesValid) integrity.push(auditError('row_hash_mismatch', 'a source row hash does not match its row'));
  const footerHashValid = footerHash(footer) === footer.footer_hash;
  if (!footerHashValid) integrity.push(auditError('footer_hash_mismatch', 'footer_hash does not match the footer'));
  const renderedValid = renderFooter(footer) === footer.rendered_text;
  if (!renderedValid) integrity.push(auditError('rendered_footer_mismatch', 'rendered_text is not the rendering of the footer fields'));
  const eventLine = `Event: ${footer.event_id} · event sha256:${footer.event_hash}`;
  const eventBindingValid = facts.every((x) => x.handleValid) && footer.rendered_text.split('\n').includes(eventLine);

  const answerText = opts.displayText === undefined ? undefined : answerFromDisplayText(opts.displayText, footer.rendered_text);
  // A copied text that is not exactly answer + separator + footer cannot have its answer re-checked, so it
  // cannot pass: otherwise one missing newline would skip every answer rule (issue 18, item 7).
  const displayTextExact = opts.displayText === undefined || answerText !== undefined;
  if (!displayTextExact) integrity.push(auditError('display_text_mismatch', 'display text is not exactly the answer, the separator and the rendered footer', 'display_text'));
  const outcome = evaluateDisplayRules({
    footer,
    policy: effectivePolicy(footer.acceptance_policy),
    ...(answerText !== undefined ? { answer: { text: answerText, units: claimUnits(answerText), scan: scanAnswer(answerText) } } : {}),
    ...(opts.displayText !== undefined ? { displayText: { copied: opts.displayText, expected: undefined } } : {}),
  });
  const ruleFindings = outcome.errors.filter((e) => e.rule !== 15);
  const gapClosed = outcome.acceptance.attribution_gap_verdict === 'closed';
  // Without the answer, only footer-side rules can be re-run: a ready footer must pass them all, and a
  // blocked footer must list every rule they fail. With the answer, the outcome must match exactly.
  const statusConsistent =
    answerText !== undefined
      ? footerOutcomeMatches(footer, ruleFindings, gapClosed)
      : footer.status === 'ready'
        ? ruleFindings.length === 0 && footerOutcomeMatches(footer, [], gapClosed)
        : footer.blocking_rules.length > 0 && ruleFindings.every((e) => footer.blocking_rules.includes(e.rule));
  if (!statusConsistent) integrity.push(auditError('status_inconsistent', "the footer's status does not follow from the rules re-run on it"));

  const signature = signatureFinding(footer, opts.trustStore);
  if (signature.problem !== undefined) integrity.push(auditError(signature.problem.code as AuditErrorCode, signature.problem.message, 'signature'));

  const spanErrors = outcome.errors.filter((e) => e.code === 'evidence_span_hash_mismatch');
  const holdsFooter = opts.displayText === undefined ? null : displayTextExact && outcome.errors.every((e) => e.rule !== 15);
  const intact = rowHashesValid && footerHashValid && renderedValid && eventBindingValid && spanErrors.length === 0;
  const passed = intact && statusConsistent && footer.status === 'ready' && ruleFindings.length === 0 && holdsFooter !== false && signature.finding.valid !== false;
  const ruleResults = outcome.acceptance.rule_results;
  return {
    schema: FOOTER_VERIFICATION_SCHEMA_ID,
    status: passed ? 'passed' : 'failed',
    public_reliance_ready: passed && signature.finding.valid === true,
    footer_status: footer.status,
    event_id: footer.event_id,
    event_hash: footer.event_hash,
    footer_hash: footer.footer_hash,
    checks: {
      schema_valid: true,
      row_hashes_valid: rowHashesValid,
      evidence_span_hashes_valid: spanErrors.length === 0,
      handles_valid: facts.every((x) => x.handleValid && x.handleShown),
      footer_hash_valid: footerHashValid,
      rendered_footer_valid: renderedValid,
      event_binding_valid: eventBindingValid,
      status_consistent: statusConsistent,
      display_text_holds_footer: holdsFooter,
      signature_valid: signature.finding.valid,
    },
    signature: signature.finding,
    source_row_count: footer.source_rows.length,
    claim_row_count: footer.claim_rows.length,
    verified_handle_count: facts.filter((x) => x.handleValid && x.handleShown).length,
    answer_rules_checked: answerText !== undefined,
    rule_results: ruleResults,
    errors: [...integrity, ...outcome.errors],
  };
}
