/**
 * Response verification (`attr-service-response-verify`). Checks that a
 * response is intact (schema, event hash, row hashes, footer hash, rendered
 * footer, display surface, summary), re-runs the fifteen display rules, and
 * checks that the declared status and audit errors are exactly what the
 * rules find. A blocked response can pass as internally consistent; only a
 * ready response whose rules all pass is `production_display_ready`.
 */
import { Compile } from 'typebox/compile';
import { canonicalJson } from '../../core/canonical-json.ts';
import { sha256Hex } from '../../core/hashing.ts';
import { AttributionResponseSchema, type AttributionResponse, type AuditError } from '../schemas/attribution-response.ts';
import { RESPONSE_VERIFICATION_SCHEMA_ID, type ResponseVerificationReport } from '../schemas/response-verification-report.ts';
import { checkRowHash, eventHash, footerHash } from '../footer/footer-hashes.ts';
import { renderFooter } from '../footer/render-footer.ts';
import { buildSummary, DISPLAY_SEPARATOR } from '../engine/assembly/build-response.ts';
import { claimUnits } from '../engine/claims/claim-units.ts';
import { effectivePolicy } from './acceptance-policy.ts';
import { scanAnswer } from './answer-scan.ts';
import { auditError, auditErrorKey, type AuditErrorCode } from './audit-error-codes.ts';
import { signatureFinding } from '../footer/footer-signature.ts';
import type { TrustStore } from '../trust-store/trust-store-schema.ts';
import { evaluateDisplayRules } from './display-rules.ts';
import { footerOutcomeMatches } from './status-consistency.ts';

export type { ResponseVerificationReport } from '../schemas/response-verification-report.ts';

const checkResponse = Compile(AttributionResponseSchema);

export interface VerifyOptions {
  /** Text a client copied or exported; must equal `display.rendered_text` (rule 15). */
  displayText?: string;
  /** The deployment trust store: the footer's signature must verify under one of its keys (docs/decisions/136). */
  trustStore?: TrustStore;
}

export function verifyAttributionResponse(input: unknown, opts: VerifyOptions = {}): ResponseVerificationReport {
  if (!checkResponse.Check(input)) {
    const errors = [...checkResponse.Errors(input)].slice(0, 20).map((e) => auditError('schema_invalid', `${e.instancePath || '/'} ${e.message}`, e.instancePath || '/'));
    const obj = (typeof input === 'object' && input !== null ? input : {}) as Record<string, any>;
    return {
      schema: RESPONSE_VERIFICATION_SCHEMA_ID,
      production_display_ready: false,
      verification_status: 'failed',
      internally_consistent: false,
      response_status: obj.status === 'ready' || obj.status === 'blocked' ? obj.status : null,
      event_id: typeof obj.event?.event_id === 'string' ? obj.event.event_id : null,
      event_hash: typeof obj.event?.event_hash === 'string' ? obj.event.event_hash : null,
      footer_hash: typeof obj.source_footer?.footer_hash === 'string' ? obj.source_footer.footer_hash : null,
      integrity: {
        schema_valid: false, event_hash_valid: false, footer_hash_valid: false, row_hashes_valid: false, rendered_footer_valid: false,
        display_consistent: false, summary_consistent: false, status_consistent: false, audit_errors_consistent: false,
      },
      signature: { present: false, trust_store_checked: opts.trustStore !== undefined, valid: opts.trustStore === undefined ? null : false, key_id: null, issuer: null },
      errors,
      source_grounding_acceptance: null,
    };
  }
  const response = input as AttributionResponse;
  const { event, source_footer: footer, display } = response;
  const integrityErrors: AuditError[] = [];
  const check = (ok: boolean, code: Parameters<typeof auditError>[0], message: string): boolean => {
    if (!ok) integrityErrors.push(auditError(code, message));
    return ok;
  };

  const answer = display.answer_text;
  const units = claimUnits(answer);
  // Each row is serialized once: for its row hash, and (reused) inside the footer hash.
  const rowChecks = footer.source_rows.map(checkRowHash);
  const rowJson = new Map<object, string>();
  rowChecks.forEach((c, i) => {
    if (c.canonical !== undefined) rowJson.set(footer.source_rows[i]!, c.canonical);
  });
  const eventHashValid = check(eventHash(event) === event.event_hash, 'event_hash_mismatch', 'event_hash does not match the event');
  const footerHashValid = check(
    footerHash(footer, rowJson) === footer.footer_hash && footer.event_id === event.event_id && footer.event_hash === event.event_hash,
    'footer_hash_mismatch',
    'footer_hash does not match the footer, or the footer names another event',
  );
  const rowHashValidity = rowChecks.map((c) => c.valid);
  const rowHashesValid = check(rowHashValidity.every(Boolean), 'row_hash_mismatch', 'a source row hash does not match its row');
  const renderedValid = check(renderFooter(footer) === footer.rendered_text, 'rendered_footer_mismatch', 'rendered_text is not the rendering of the footer fields');
  const displayValid = check(
    display.separator === DISPLAY_SEPARATOR && display.rendered_text === `${answer}${display.separator}${footer.rendered_text}`,
    'display_inconsistent',
    'display.rendered_text is not the answer followed by the rendered footer',
  );
  const eventClaimsValid = check(
    event.answer_sha256 === sha256Hex(answer) && canonicalJson(event.claim_hashes) === canonicalJson(units.map((u) => u.hash)),
    'event_claims_mismatch',
    'the event does not record this answer and its claim units',
  );
  const summaryValid = check(
    canonicalJson(buildSummary(footer, event)) === canonicalJson(response.summary) && response.status === footer.status,
    'summary_mismatch',
    'summary or status does not match the footer and event',
  );

  const outcome = evaluateDisplayRules({
    footer,
    policy: effectivePolicy(footer.acceptance_policy),
    event,
    answer: { text: answer, units, scan: scanAnswer(answer) },
    knownRowHashValidity: rowHashValidity,
    ...(opts.displayText !== undefined ? { displayText: { copied: opts.displayText, expected: display.rendered_text } } : {}),
  });
  const engineFindings = outcome.errors.filter((e) => e.rule !== 15);
  const statusValid = check(
    footerOutcomeMatches(footer, engineFindings, outcome.acceptance.attribution_gap_verdict === 'closed'),
    'status_inconsistent',
    'status, verdicts, disclosures or settlement statuses do not follow from the display rules',
  );
  const declared = response.audit_errors.map(auditErrorKey).sort();
  const found = engineFindings.map(auditErrorKey).sort();
  const auditValid = check(canonicalJson(declared) === canonicalJson(found), 'audit_errors_inconsistent', 'audit_errors differ from what the display rules find');

  const signature = signatureFinding(footer, opts.trustStore);
  if (signature.problem !== undefined) integrityErrors.push(auditError(signature.problem.code as AuditErrorCode, signature.problem.message, 'signature'));

  const internallyConsistent =
    eventHashValid && footerHashValid && rowHashesValid && renderedValid && displayValid && eventClaimsValid && summaryValid && statusValid && auditValid;
  // With a trust store, an unsigned or foreign-signed response is not display-ready for this deployment.
  const ready = internallyConsistent && response.status === 'ready' && outcome.acceptance.status === 'passed' && signature.finding.valid !== false;
  return {
    schema: RESPONSE_VERIFICATION_SCHEMA_ID,
    production_display_ready: ready,
    verification_status: ready ? 'passed' : 'failed',
    internally_consistent: internallyConsistent,
    response_status: response.status,
    event_id: event.event_id,
    event_hash: event.event_hash,
    footer_hash: footer.footer_hash,
    integrity: {
      schema_valid: true,
      event_hash_valid: eventHashValid && eventClaimsValid,
      footer_hash_valid: footerHashValid,
      row_hashes_valid: rowHashesValid,
      rendered_footer_valid: renderedValid,
      display_consistent: displayValid,
      summary_consistent: summaryValid,
      status_consistent: statusValid,
      audit_errors_consistent: auditValid,
    },
    signature: signature.finding,
    errors: [...integrityErrors, ...outcome.errors],
    source_grounding_acceptance: outcome.acceptance,
  };
}
