/**
 * Numbers mentioned in a text, normalised for comparison ("1,000" → "1000",
 * "3.50" → "3.5"). Four-digit years are kept apart: they carry temporal, not
 * numeric, force.
 */

const NUMBER = /(?<![\p{L}\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])|(?<![\p{L}\d.,])\d+(?:\.\d+)?(?![\d])/gu;

const ANY_DIGIT = /\d/;

export interface NumberMentions {
  values: string[];
  years: string[];
}

function normalise(raw: string): string {
  const plain = raw.replace(/,/g, '');
  return plain.includes('.') ? plain.replace(/\.?0+$/, '') : plain.replace(/^0+(?=\d)/, '');
}

export function numberMentions(text: string): NumberMentions {
  const values: string[] = [];
  const years: string[] = [];
  if (!ANY_DIGIT.test(text)) return { values, years };
  for (const m of text.matchAll(NUMBER)) {
    const raw = m[0];
    if (/^(1[5-9]|20)\d{2}$/.test(raw)) years.push(raw);
    else values.push(normalise(raw));
  }
  return { values, years };
}
