/**
 * Nearest-rank percentile: the smallest value with at least p% of the values
 * at or below it. Chosen because an auditor can recompute it by sorting the
 * rows and counting, with no interpolation convention to agree on.
 */
export function nearestRank(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1];
}
