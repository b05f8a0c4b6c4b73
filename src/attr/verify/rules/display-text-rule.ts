/**
 * Rule 15: a copied or exported text must equal `display.rendered_text`
 * exactly. When it does not, the finding says what was lost: the footer, a
 * verification handle, or something else.
 */
import type { Findings, RuleContext } from './rule-context.ts';

export function displayTextRule(ctx: RuleContext, f: Findings): 'matched' | 'mismatched' | 'not_checked' {
  const d = ctx.displayText;
  if (!d) return 'not_checked';
  if (d.expected !== undefined && d.copied === d.expected) return 'matched';
  if (!d.copied.includes(ctx.footer.rendered_text)) {
    f.add('display_text_missing_footer', 'the copied text does not hold the exact rendered source footer');
  }
  for (const row of ctx.footer.source_rows) {
    if (!d.copied.includes(row.verify)) f.add('display_text_missing_handle', `the copied text lost the verification handle of ${row.label}`, row.label);
  }
  if (d.expected !== undefined) f.add('display_text_mismatch', 'the copied text differs from display.rendered_text');
  else if (f.errors.length > 0) return 'mismatched';
  return d.expected === undefined ? 'matched' : 'mismatched';
}
