/**
 * The fifteen grounded display rules, evaluated together. The engine calls
 * this on its draft to decide `ready` or `blocked` and to fill
 * `audit_errors`; the response verifier calls it again on what it received
 * and compares. One implementation, so the two can never drift apart.
 */
import type { AuditError } from '../schemas/attribution-response.ts';
import type { SourceGroundingAcceptance, RuleResult } from '../schemas/response-verification-report.ts';
import { RULE_NAMES } from './audit-error-codes.ts';
import { citationRule, claimCoverageRule, linkRule, modelRelianceRule, temporalRule } from './rules/answer-rules.ts';
import { displayTextRule } from './rules/display-text-rule.ts';
import {
  claimEvidenceRule, claimSourceRule, closureRule, disagreementRule, handleRule, locatorRule, royaltyRule, sourceClaimRowsRule, warrantRule,
} from './rules/footer-rules.ts';
import { Findings, type RuleContext } from './rules/rule-context.ts';
import { rowFacts } from './rules/source-row-checks.ts';

export interface DisplayRuleOutcome {
  errors: AuditError[];
  acceptance: SourceGroundingAcceptance;
  /** True when the event's consumed/visible/paid coverage is closed (rule 13). */
  closed: boolean;
}

export function evaluateDisplayRules(ctx: RuleContext): DisplayRuleOutcome {
  const f = new Findings();
  const facts = rowFacts(ctx.footer, ctx);
  const citations = citationRule(ctx, facts, f);
  const links = linkRule(ctx, facts, f);
  sourceClaimRowsRule(ctx, f);
  const warrant = warrantRule(ctx, f);
  const disagreement = disagreementRule(ctx, f);
  handleRule(facts, f);
  const locators = locatorRule(ctx, facts, f);
  const temporal = temporalRule(ctx, f);
  const coverage = claimCoverageRule(ctx, f);
  const reliance = modelRelianceRule(ctx, f);
  const evidence = claimEvidenceRule(ctx, f);
  const claimSource = claimSourceRule(ctx, f);
  const { closed, ...closure } = closureRule(ctx, f);
  const royalty = royaltyRule(ctx, f);
  const displayTextStatus = displayTextRule(ctx, f);

  const ruleResults: RuleResult[] = [];
  for (let rule = 1; rule <= 15; rule++) {
    const count = f.countFor(rule);
    const notChecked = (rule === 15 && displayTextStatus === 'not_checked') || (!ctx.answer && [1, 2, 8, 9, 10].includes(rule));
    ruleResults.push({ rule, name: RULE_NAMES[rule]!, status: count > 0 ? 'failed' : notChecked ? 'not_checked' : 'passed', error_count: count });
  }
  const failed = f.errors.length > 0 || ruleResults.some((r) => r.status === 'not_checked' && r.rule !== 15);
  const acceptance: SourceGroundingAcceptance = {
    status: failed ? 'failed' : 'passed',
    rule_results: ruleResults,
    ...citations,
    ...links,
    ...locators,
    ...temporal,
    ...coverage,
    ...reliance,
    ...evidence,
    ...warrant,
    ...disagreement,
    ...claimSource,
    ...closure,
    ...royalty,
    display_text_status: displayTextStatus,
  };
  return { errors: f.errors, acceptance, closed };
}
