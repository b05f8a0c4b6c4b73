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
   * Row-hash validity per source row when the caller has just computed it
   * for this very footer object (the response verifier does, for its
   * integrity report): taken instead of hashing every row again.
   */
  knownRowHashValidity?: readonly boolean[];
  /**
   * Set only by the engine, for the draft footer it has just built: the
   * draft's handles, rendered text and evidence span hashes were derived
   * from its own rows in the same call, and its row hashes are sealed only
   * after the rules. The rules take that integrity as given instead of
   * re-deriving it; everything else (all the grounding rules) runs as in
   * the verifiers. Verifiers never set it. The engine option
   * `rederiveDraftIntegrity` turns it off, and a test shows both ways give
   * the same responses.
   */
  integrityByConstruction?: boolean;
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
