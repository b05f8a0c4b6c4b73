/**
 * Parsing of `gross_revenue`: one grammar, `^(0|[1-9][0-9]{0,20})(\.[0-9]{1,18})?$`
 * (docs/decisions/134-revenue-grammar.md): no sign, no spaces, no leading
 * zeros, at most 21 integer and 18 fraction digits. Each way of missing it
 * gets its own message (`details.reason`); a leading `-` on an otherwise
 * valid amount is `negative_revenue`. Amounts are computed at the revenue's own scale but
 * never below cents (2 digits), so "10" yields "10.00" and "0.125" keeps
 * three digits; the distributable total therefore equals the gross revenue
 * exactly and no rounding residue is ever lost.
 */
import { AttrError } from '../../errors.ts';

const DECIMAL = /^(0|[1-9][0-9]{0,20})(?:\.([0-9]{1,18}))?$/;
/** Looser shape used only to pick the precise message for an amount the grammar refuses. */
const DIGITS = /^-?([0-9]+)(?:\.([0-9]+))?$/;
const MAX_INTEGER_DIGITS = 21;
const MAX_FRACTION_DIGITS = 18;

function refuse(reason: string, message: string): AttrError {
  return new AttrError('invalid_gross_revenue', message, { details: { field: 'gross_revenue', reason } });
}

/** Why `input` (which the grammar refused) is not an amount. */
function refusal(input: string): AttrError {
  if (input === '') return refuse('empty', 'gross_revenue must not be empty');
  if (/\s/.test(input)) return refuse('whitespace', 'gross_revenue must not contain spaces or other whitespace');
  if (input.startsWith('+')) return refuse('sign', 'gross_revenue must not carry a sign');
  const m = DIGITS.exec(input);
  if (m === null) return refuse('not_decimal', 'gross_revenue must be a plain decimal such as "12.50" (digits, optionally one "." and 1-18 digits)');
  const [, integer = '', fraction] = m;
  if (integer.length > 1 && integer.startsWith('0')) return refuse('leading_zeros', 'gross_revenue must not have leading zeros');
  if (integer.length > MAX_INTEGER_DIGITS) return refuse('too_large', `gross_revenue is too large: at most ${MAX_INTEGER_DIGITS} integer digits`);
  if (fraction !== undefined && fraction.length > MAX_FRACTION_DIGITS) return refuse('too_precise', `gross_revenue has too many fraction digits: at most ${MAX_FRACTION_DIGITS}`);
  return refuse('not_decimal', 'gross_revenue must be a plain decimal such as "12.50"');
}

export interface ParsedRevenue {
  /** The revenue at `scale` fraction digits. */
  amount: string;
  scale: number;
}

export function parseGrossRevenue(input: unknown): ParsedRevenue {
  if (typeof input !== 'string') throw new AttrError('invalid_gross_revenue', 'gross_revenue must be a decimal string');
  const m = DECIMAL.exec(input);
  if (!m) {
    // "-5" is well-formed apart from its sign: say it is negative (the spec's case), not malformed.
    if (input.startsWith('-') && DECIMAL.test(input.slice(1))) throw new AttrError('negative_revenue', 'gross_revenue must not be negative');
    throw refusal(input);
  }
  const fraction = m[2] ?? '';
  const scale = Math.max(2, fraction.length);
  return { amount: `${m[1]}.${fraction.padEnd(scale, '0')}`, scale };
}
