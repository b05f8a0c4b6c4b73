/**
 * Parsing of `gross_revenue`: a plain decimal string, not negative, at most
 * 18 fraction digits. Amounts are computed at the revenue's own scale but
 * never below cents (2 digits), so "10" yields "10.00" and "0.125" keeps
 * three digits; the distributable total therefore equals the gross revenue
 * exactly and no rounding residue is ever lost.
 */
import { AttrError } from '../../errors.ts';

const DECIMAL = /^(-)?(0|[1-9]\d{0,20})(?:\.(\d{1,18}))?$/;

export interface ParsedRevenue {
  /** The revenue at `scale` fraction digits. */
  amount: string;
  scale: number;
}

export function parseGrossRevenue(input: unknown): ParsedRevenue {
  if (typeof input !== 'string') throw new AttrError('invalid_gross_revenue', 'gross_revenue must be a decimal string');
  const m = DECIMAL.exec(input.trim());
  if (!m) throw new AttrError('invalid_gross_revenue', 'gross_revenue must be a plain decimal such as "12.50"');
  const fraction = m[3] ?? '';
  if (m[1] && !/^0(\.0+)?$/.test(input.trim().slice(1))) {
    throw new AttrError('negative_revenue', 'gross_revenue must not be negative');
  }
  const scale = Math.max(2, fraction.length);
  return { amount: `${m[2]}.${fraction.padEnd(scale, '0')}`, scale };
}
