/**
 * raw-byte-path: the user path for one 50 MiB random file — the `svc` CLI
 * process against a running `svc serve` process (SQLite, filesystem chunks) —
 * before and after the raw byte path (decision 112), in the same run:
 *
 * - ingest: the previous CLI protocol (JSON multipart, 8 MiB base64 parts;
 *   bench/raw-byte-path/client.ts) against `svc execute --kind byte_object
 *   --file` now (hash, then one raw `PUT /v1/s3/objects`), and the same file
 *   piped into `svc execute --file -` (one pass, length and digest in a body
 *   footer: decision 198);
 * - restore: the previous `svc manifest rehydrate --out` (whole answer in
 *   memory, one write) against the streamed one now;
 * - anchors: the CLI's own uploader and downloader against a bare Node HTTP
 *   server that discards / serves the bytes from memory (the transport floor
 *   for one process talking to another on this machine).
 *
 * Every figure is the wall time of a client process, start to exit (what a
 * user waits for), for fresh random bytes (no dedupe between paths or
 * rounds). The paths alternate for `--rounds` rounds (default 3); medians.
 */
import { spawn } from 'node:child_process';
import { createHash, randomFillSync } from 'node:crypto';
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStaticHttp } from '../../src/svc/benchmarks/anchors/static-http.ts';
import { type BenchReport, round, summarize } from '../report.ts';

const MiB = 1024 * 1024;
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SVC_BIN = path.join(ROOT, 'bin/svc.mjs');
const CLIENT = path.join(ROOT, 'bench/raw-byte-path/client.ts');
const API_KEY = 'bench-raw-key-0123456789abcdef';

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Runs a Node process to its end; resolves with its wall time and stdout. With `stdinFile`, the file is piped into
 * its standard input by this process, as `cat file |` would.
 */
function timed(args: string[], env: Record<string, string> = {}, stdinFile?: string): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: [stdinFile === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (stdinFile !== undefined) createReadStream(stdinFile).pipe(child.stdin!);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d) => (stdout += d));
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ ms: performance.now() - started, stdout }) : reject(new Error(`${args.slice(0, 3).join(' ')} exited ${code}: ${stderr.slice(0, 500)}`))));
  });
}

async function startSvc(stateDir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const port = await freePort();
  const env = { SVC_STATE_DIR: stateDir, SVC_PORT: String(port), SVC_GRPC_ENABLED: 'false', SVC_LOCAL_API_KEY: API_KEY, SVC_LOG_LEVEL: 'warn' };
  const child = spawn(process.execPath, [SVC_BIN, 'serve'], { env: { ...process.env, ...env }, stdio: 'ignore' });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    stop: () => new Promise<void>((resolve) => {
      child.on('close', () => resolve());
      child.kill('SIGTERM');
    }),
  };
}

const mbps = (bytes: number, ms: number) => round(bytes / MiB / (ms / 1000), 1);
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

export default async function run(args: string[]): Promise<BenchReport> {
  const roundsArg = args.indexOf('--rounds');
  const rounds = roundsArg >= 0 ? Math.max(1, Number(args[roundsArg + 1])) : 3;
  const sizeArg = args.indexOf('--size-mib');
  const size = (sizeArg >= 0 ? Number(args[sizeArg + 1]) : 50) * MiB;
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'raw-byte-path-'));
  const stateDir = path.join(workDir, 'state');
  mkdirSync(stateDir);
  const svc = await startSvc(stateDir);
  const file = path.join(workDir, 'object.bin');
  const anchorFile = path.join(workDir, 'anchor.bin');
  const anchorBody = randomFillSync(Buffer.alloc(size));
  writeFileSync(anchorFile, anchorBody);
  const bare = await startStaticHttp([anchorBody]);
  const cliEnv = { SVC_URL: svc.url, SVC_API_KEY: API_KEY };
  const ms: Record<'json_multipart' | 'raw' | 'stdin' | 'upload_anchor' | 'buffered_restore' | 'streamed_restore' | 'download_anchor', number[]> = {
    json_multipart: [],
    raw: [],
    stdin: [],
    upload_anchor: [],
    buffered_restore: [],
    streamed_restore: [],
    download_anchor: [],
  };
  let exact = 0;
  let checks = 0;
  try {
    for (let r = 0; r < rounds; r++) {
      const check = (out: string, want: string) => {
        checks++;
        if (sha256(readFileSync(out)) === want) exact++;
      };
      // Fresh bytes for each path: neither path deduplicates against the other.
      writeFileSync(file, randomFillSync(Buffer.alloc(size)));
      let want = sha256(readFileSync(file));
      const before = await timed([CLIENT, 'json-multipart', svc.url, API_KEY, file, 'bench', `json-${r}`]);
      ms.json_multipart.push(before.ms);
      const beforeManifest = (JSON.parse(before.stdout) as { manifest_id: string; output: { sha256: string } });
      checks++;
      if (beforeManifest.output.sha256 === want) exact++;
      const out = path.join(workDir, 'out.bin');
      ms.buffered_restore.push((await timed([CLIENT, 'buffered-rehydrate', svc.url, API_KEY, beforeManifest.manifest_id, out])).ms);
      check(out, want);
      rmSync(out);

      writeFileSync(file, randomFillSync(Buffer.alloc(size)));
      want = sha256(readFileSync(file));
      const after = await timed([SVC_BIN, '--json', 'execute', '--kind', 'byte_object', '--file', file, '--bucket', 'bench', '--key', `raw-${r}`], cliEnv);
      ms.raw.push(after.ms);
      const afterManifest = JSON.parse(after.stdout) as { manifest_id: string; output: { sha256: string } };
      checks++;
      if (afterManifest.output.sha256 === want) exact++;
      ms.streamed_restore.push((await timed([SVC_BIN, 'manifest', 'rehydrate', afterManifest.manifest_id, '--out', out], cliEnv)).ms);
      check(out, want);
      rmSync(out);

      // The same user path from a pipe: one pass over standard input, the footer last (decision 198).
      writeFileSync(file, randomFillSync(Buffer.alloc(size)));
      want = sha256(readFileSync(file));
      const piped = await timed([SVC_BIN, '--json', 'execute', '--kind', 'byte_object', '--file', '-', '--bucket', 'bench', '--key', `stdin-${r}`], cliEnv, file);
      ms.stdin.push(piped.ms);
      checks++;
      if ((JSON.parse(piped.stdout) as { output: { sha256: string } }).output.sha256 === want) exact++;

      ms.upload_anchor.push((await timed([CLIENT, 'raw-anchor', bare.url, anchorFile])).ms);
      ms.download_anchor.push((await timed([CLIENT, 'download-anchor', bare.url, out])).ms);
      rmSync(out);
    }
  } finally {
    await svc.stop();
    await bare.close();
    rmSync(workDir, { recursive: true, force: true });
  }
  const med = (xs: number[]) => summarize(xs).p50;
  const rate = Object.fromEntries(Object.entries(ms).map(([k, xs]) => [k, mbps(size, med(xs))])) as Record<keyof typeof ms, number>;
  const perRound = Object.fromEntries(Object.entries(ms).map(([k, xs]) => [k, xs.map((x) => mbps(size, x))]));
  const results = {
    object_mib: size / MiB,
    rounds,
    mib_per_s: rate,
    mib_per_s_per_round: perRound,
    ingest_speedup: round(rate.raw / rate.json_multipart, 2),
    restore_speedup: round(rate.streamed_restore / rate.buffered_restore, 2),
    ingest_fraction_of_upload_anchor: round(rate.raw / rate.upload_anchor, 3),
    stdin_to_file_ingest: round(rate.stdin / rate.raw, 3),
    restore_fraction_of_download_anchor: round(rate.streamed_restore / rate.download_anchor, 3),
    exact: `${exact}/${checks}`,
  };
  return {
    suite: 'raw-byte-path',
    results,
    table: {
      columns: [`CLI → svc serve, one ${size / MiB} MiB random file`, 'before (JSON)', 'after (raw)', 'after / before', 'anchor (bare HTTP)', 'after / anchor'],
      rows: [
        ['ingest (MiB/s)', rate.json_multipart, rate.raw, `${results.ingest_speedup}×`, rate.upload_anchor, results.ingest_fraction_of_upload_anchor],
        ['ingest from standard input, `--file -` (MiB/s)', '', rate.stdin, '', rate.upload_anchor, round(rate.stdin / rate.upload_anchor, 3)],
        ['restore to a file (MiB/s)', rate.buffered_restore, rate.streamed_restore, `${results.restore_speedup}×`, rate.download_anchor, results.restore_fraction_of_download_anchor],
        ['bit-exact', '', results.exact, '', '', ''],
      ],
    },
    notes: [
      `before: the previous CLI protocol — JSON multipart with 8 MiB base64 parts (ingest), the whole answer buffered then written (restore); after: \`svc execute --kind byte_object --file f --bucket b --key k\` (hash, then one raw PUT with Content-Length and X-SVC-Content-SHA256) and \`svc manifest rehydrate --out\` (streamed); standard input: the same command with \`--file -\` reading the file from a pipe fed by the bench process, as \`cat f |\` would (one pass, chunked, length and digest in the body footer; ${results.stdin_to_file_ingest}× the file path's rate). Anchor: the CLI's own uploader/downloader against a bare Node HTTP server in the bench process.`,
      `Wall time of each client process, start to exit (Node start-up included), for fresh random bytes; svc serve in its own process (SQLite, filesystem chunks, defaults). ${rounds} alternating rounds, medians; per round: ${JSON.stringify(perRound)}. The machine is shared, so absolute figures vary between runs; the ratios come from one run.`,
    ],
  };
}
