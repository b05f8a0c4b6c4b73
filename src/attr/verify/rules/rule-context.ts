/**
 * The shared input of the display rules and the collector they report into.
 * Rules only read; every finding becomes an audit error tagged with its rule.
 */
import type { AcceptancePolicy, AuditError, SourceFooter, UsageEvent } from '../../schemas/attribution-response.ts';
import type { ClaimUnit } from '../../engine/claims/claim-units.ts';
import type { WarrantReader } from '../../engine/warrant/warrant-profile.ts';
import { auditError, type AuditErrorCode } from '../audit-error-codes.ts';
import type { AnswerScan } from '../answer-scan.ts';

/** A footer as the rules see it: rendered text and hash may be drafts while the engine builds it. */
export type FooterUnderReview = SourceFooter;

export interface RuleContext {
  footer: FooterUnderReview;
  policy: AcceptancePolicy;
  /** The usage event, when available (not for the standalone footer verifier). */
  event?: UsageEvent;
  /** Claim units and scan of the answer, when the answer text is available. */
  answer?: { text: string; units: ClaimUnit[]; scan: AnswerScan };
  /** Copied text to compare (rule 15), with the display text it must equal when known. */
  displayText?: { copied: string; expected: string | undefined };
  /**
   * Memo of warrant readings for this one evaluation. The engine passes the
   * reader it filled while building the claim rows, so each text is read
   * once per attribution; absent, the rules use a fresh one.
   */
  warrants?: WarrantReader;
  /**
   * Per source row, integrity the caller has already established for this
   * very footer object, taken instead of re-derived. The engine passes it for
   * its own draft (it derived every handle from these rows in the same call,
   * and seals the row hashes only after the rules); the response verifier
   * passes the row-hash results it has just computed. Absent: re-derived.
   */
  knownRowIntegrity?: readonly { rowHashValid: boolean; handleValid?: boolean }[];
}

export class Findings {
  readonly errors: AuditError[] = [];
  add(code: AuditErrorCode, message: string, subject?: string): void {
    this.errors.push(auditError(code, message, subject));
  }
  countFor(rule: number): number {
    return this.errors.filter((e) => e.rule === rule).length;
  }
}
