/**
 * Optional reference: the Portkey gateway (`@portkey-ai/gateway` from npm),
 * installed into a temporary directory by the benchmark (never a project
 * dependency) and run as a child process in front of the same mock.
 * Returns undefined when it cannot be installed or started here.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface RunningPortkey {
  url: string;
  version: string;
  stop(): void;
}

async function waitFor(url: string, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url);
      if (r.ok) return true;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

export async function startPortkey(port: number): Promise<RunningPortkey | undefined> {
  const dir = process.env.PORTKEY_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'portkey-'));
  const entry = path.join(dir, 'node_modules/@portkey-ai/gateway/build/start-server.js');
  if (!existsSync(entry)) {
    const npm = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', dir, '@portkey-ai/gateway'], { stdio: 'ignore', timeout: 180_000 });
    if (npm.status !== 0 || !existsSync(entry)) return undefined;
  }
  const version = (JSON.parse(spawnSync(process.execPath, ['-e', `process.stdout.write(require('fs').readFileSync(${JSON.stringify(path.join(dir, 'node_modules/@portkey-ai/gateway/package.json'))},'utf8'))`]).stdout.toString()) as { version: string }).version;
  const child: ChildProcess = spawn(process.execPath, [entry, `--port=${port}`, '--headless'], { stdio: 'ignore', env: { ...process.env, NODE_ENV: 'production' } });
  const url = `http://127.0.0.1:${port}`;
  if (!(await waitFor(`${url}/`, 15_000))) {
    child.kill();
    return undefined;
  }
  return { url: `${url}/v1`, version, stop: () => child.kill() };
}
