/** Query-string parsing shared by routes (strings in, typed values out, clear errors). */
import { SvcError } from '../errors.ts';

export function optionalInt(raw: unknown, name: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const s = String(raw);
  if (!/^-?\d+$/.test(s)) throw new SvcError('invalid_request', `${name} must be an integer`);
  return Number(s);
}

/** `a,b` or repeated `?x=a&x=b` → list. */
export function optionalList(raw: unknown): string[] | undefined {
  if (raw === undefined || raw === '') return undefined;
  const parts = (Array.isArray(raw) ? raw : [raw]).flatMap((v) => String(v).split(','));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}
