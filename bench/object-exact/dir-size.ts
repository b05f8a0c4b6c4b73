/** Total size in bytes of the regular files under a directory (apparent size, like `du -sb`). */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export function dirSize(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(path.join(entry.parentPath, entry.name)).size;
  }
  return total;
}
