/**
 * Reading and writing readiness artifacts in `artifact_dir`. Writes are
 * atomic (temporary file + rename) so the gate never reads half an artifact;
 * reads return the bytes' SHA-256 with the parsed value so the readiness
 * report can bind each artifact by hash.
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sha256Hex } from '../../core/hashing.ts';
import { ARTIFACTS, type ArtifactName } from './artifact-schemas.ts';

export type ArtifactRead = { ok: true; value: unknown; sha256: string } | { ok: false; problem: string };

export class ArtifactStore {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
  }

  fileOf(name: ArtifactName): string {
    return path.join(this.dir, ARTIFACTS[name].file);
  }

  /** Writes an artifact atomically; returns the SHA-256 of the bytes written. */
  async write(name: ArtifactName, value: unknown): Promise<string> {
    await mkdir(this.dir, { recursive: true });
    const text = `${JSON.stringify(value, null, 2)}\n`;
    const target = this.fileOf(name);
    const temporary = `${target}.${process.pid}.tmp`;
    await writeFile(temporary, text, { mode: 0o644 });
    await rename(temporary, target);
    return sha256Hex(text);
  }

  async read(name: ArtifactName): Promise<ArtifactRead> {
    let text: string;
    try {
      text = await readFile(this.fileOf(name), 'utf8');
    } catch (err) {
      return { ok: false, problem: `${ARTIFACTS[name].file} unreadable (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
    }
    try {
      return { ok: true, value: JSON.parse(text), sha256: sha256Hex(text) };
    } catch {
      return { ok: false, problem: `${ARTIFACTS[name].file} is not JSON` };
    }
  }
}
