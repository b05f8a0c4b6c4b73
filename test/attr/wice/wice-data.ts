/**
 * Where the WiCE dev split lives: `../shared/data/wice-dev.jsonl` beside the
 * repository (CI's layout), or two levels up from a worktree under `wt/`.
 * `ATTR_WICE_PATH` overrides both (e.g. a held-out split).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

export function wiceDevPath(): string | undefined {
  const candidates = [
    process.env.ATTR_WICE_PATH,
    path.resolve(repoRoot, '../shared/data/wice-dev.jsonl'),
    path.resolve(repoRoot, '../../shared/data/wice-dev.jsonl'),
  ].filter((p): p is string => p !== undefined && p !== '');
  return candidates.find((p) => existsSync(p));
}

/** The fast slice `npm test` runs: every seventh row (50 of the 349 dev rows), the same rows every time. */
export function wiceSlice<T>(rows: readonly T[]): T[] {
  return rows.filter((_, i) => i % 7 === 3);
}
