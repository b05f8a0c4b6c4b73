/**
 * Is this volume safe for the filesystem chunk store? The store writes a
 * temporary file, fsyncs it, hard-links it to its final name and fsyncs the
 * directory (src/svc/chunk-store/fs-chunk-store.ts). This runs exactly that
 * sequence on a probe file in the chunk directory and reads it back.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { type PlatformCheck, runCheck, skippedCheck } from './platform-check.ts';

export async function validateFilesystem(dir: string): Promise<PlatformCheck[]> {
  const checks: PlatformCheck[] = [];
  const writable = await runCheck('filesystem.directory', async () => {
    await fs.mkdir(dir, { recursive: true });
    await fs.access(dir, fs.constants.W_OK | fs.constants.R_OK);
    return `${dir} exists and is writable`;
  });
  checks.push(writable);
  if (!writable.ok) {
    checks.push(skippedCheck('filesystem.fsync_link_durability', 'the directory is not usable'));
    return checks;
  }
  const id = randomBytes(6).toString('hex');
  const temp = path.join(dir, `.tmp-platform-probe-${id}`);
  const final = path.join(dir, `.platform-probe-${id}`);
  const data = randomBytes(4096);
  checks.push(
    await runCheck('filesystem.fsync_link_durability', async () => {
      try {
        const handle = await fs.open(temp, 'wx');
        try {
          await handle.writeFile(data);
          await handle.sync();
        } finally {
          await handle.close();
        }
        try {
          await fs.link(temp, final);
        } catch (err) {
          throw new Error(`hard links are not supported on this volume (${(err as NodeJS.ErrnoException).code ?? 'error'}); the chunk store needs link(2) for atomic first writes`);
        }
        const links = (await fs.stat(final)).nlink;
        if (links < 2) throw new Error(`link(2) succeeded but the file has ${links} link(s): the volume does not implement hard links faithfully`);
        const dirHandle = await fs.open(dir, 'r');
        try {
          await dirHandle.sync();
        } catch (err) {
          throw new Error(`fsync of the directory failed (${(err as NodeJS.ErrnoException).code ?? 'error'}): directory entries may not survive a power loss`);
        } finally {
          await dirHandle.close();
        }
        const back = await fs.readFile(final);
        if (!back.equals(data)) throw new Error('the probe file read back different bytes');
        return 'write + fsync + link + directory fsync + read-back passed';
      } finally {
        await fs.rm(temp, { force: true });
        await fs.rm(final, { force: true });
      }
    }),
  );
  return checks;
}
