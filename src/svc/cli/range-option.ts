/**
 * `--range` of `svc manifest rehydrate`: `a:b` (bytes a to b, inclusive),
 * `a:` (from a to the end), `:n` (the last n bytes) — the HTTP range forms
 * with a colon, mapped to the rehydrate request's `range` field.
 */
export type RangeBody = { start: number; end?: number } | { suffix: number };

export function parseRangeOption(text: string): RangeBody {
  const m = /^(\d*):(\d*)$/.exec(text.trim());
  if (!m || (m[1] === '' && m[2] === '')) throw new Error(`--range expects start:end, start: or :suffix (got '${text}')`);
  const [, first = '', last = ''] = m;
  if (first === '') return { suffix: Number(last) };
  return last === '' ? { start: Number(first) } : { start: Number(first), end: Number(last) };
}
