/**
 * Puts the response together: display surface, summary, audit errors.
 * `display.rendered_text` is the answer, a blank line, and the rendered
 * footer: exactly what a client shows and keeps on copy or export.
 */
import type { AttributionResponse, AuditError, SourceFooter, UsageEvent } from '../../schemas/attribution-response.ts';
import { RESPONSE_SCHEMA_ID } from '../../schemas/attribution-response.ts';

export const DISPLAY_SEPARATOR = '\n\n';

export function displayText(answer: string, footer: SourceFooter): string {
  return `${answer}${DISPLAY_SEPARATOR}${footer.rendered_text}`;
}

export function buildSummary(footer: SourceFooter, event: UsageEvent): AttributionResponse['summary'] {
  return {
    event_id: event.event_id,
    event_hash: event.event_hash,
    source_count: footer.source_rows.length,
    footer_hash: footer.footer_hash,
    royalty_share_count: event.royalty_shares.length,
    grounding_verdict: footer.grounding_verdict,
    attribution_gap_verdict: footer.attribution_gap_verdict,
    claim_unit_count: footer.claim_rows.length,
    supported_claim_count: footer.claim_rows.filter((c) => c.support_status === 'supported').length,
  };
}

export function buildResponse(answer: string, footer: SourceFooter, event: UsageEvent, errors: AuditError[]): AttributionResponse {
  return {
    schema: RESPONSE_SCHEMA_ID,
    status: footer.status,
    summary: buildSummary(footer, event),
    source_footer: footer,
    display: { answer_text: answer, separator: DISPLAY_SEPARATOR, rendered_text: displayText(answer, footer) },
    audit_errors: errors,
    event,
  };
}
