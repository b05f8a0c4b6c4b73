/**
 * Numbers mentioned in a text, normalised for comparison ("1,000" → "1000",
 * "3.50" → "3.5", "three" → "3", "fifth" → "5" as "5th" is). Four-digit years are kept apart: they
 * carry temporal, not numeric, force. The short end of a year range is a
 * year ("2018–19" mentions 2018 and 2019), so "2018–19" and "2018-2019" say
 * the same thing.
 */
import { NUMBER_WORDS, ORDINAL_WORDS } from '../text/tokenizer.ts';

const NUMBER = /(?<![\p{L}\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d])|(?<![\p{L}\d.,])\d+(?:\.\d+)?(?![\d])/gu;
const UNITS = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
/** A number word, a tens word with its hyphenated unit first ("sixty-six" is 66). */
const NUMBER_WORD = new RegExp(`\\b(?:(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[-‐‑–](${UNITS.join('|')})|${[...NUMBER_WORDS.keys(), ...ORDINAL_WORDS.keys()].join('|')})\\b`, 'giu');
/** The figure of a number or ordinal word ("five" and "fifth" are 5, as "5th" is). */
const wordValue = (w: string): string => NUMBER_WORDS.get(w) ?? ORDINAL_WORDS.get(w)!;
const YEAR = /^(1[5-9]|20)\d{2}$/;
/** "2018–19", "1914-18", "2018/19": a year, a dash or slash, two digits. */
const YEAR_RANGE_TAIL = /^\s*[-–—/]\s*$/;

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
  let lastYear: { value: string; end: number } | undefined;
  if (ANY_DIGIT.test(text)) {
    for (const m of text.matchAll(NUMBER)) {
      const raw = m[0];
      if (YEAR.test(raw)) {
        years.push(raw);
        lastYear = { value: raw, end: m.index + raw.length };
      } else if (/^\d\d$/.test(raw) && lastYear && YEAR_RANGE_TAIL.test(text.slice(lastYear.end, m.index))) {
        years.push(lastYear.value.slice(0, 2) + raw);
        lastYear = undefined;
      } else values.push(normalise(raw));
    }
  }
  for (const m of text.matchAll(NUMBER_WORD)) {
    values.push(m[1] ? String(Number(NUMBER_WORDS.get(m[1].toLowerCase())) + UNITS.indexOf(m[2]!.toLowerCase()) + 1) : wordValue(m[0].toLowerCase()));
  }
  return { values, years };
}
