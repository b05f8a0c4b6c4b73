/**
 * Minimal keep-alive HTTP load generator for the AI benchmarks: one agent
 * per target, requests timed from write to last byte, sequential or with a
 * fixed number of requests in flight.
 */
import http from 'node:http';

export interface Target {
  name: string;
  url: string;
  headers: Record<string, string>;
}

export function makeRequester(target: Target) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const base = new URL(target.url);
  return {
    /** POSTs JSON; resolves with the latency in ms and the status. */
    post(path: string, body: unknown): Promise<{ ms: number; status: number; body: string }> {
      const payload = JSON.stringify(body);
      const t0 = performance.now();
      return new Promise((resolve, reject) => {
        const req = http.request(
          { hostname: base.hostname, port: base.port, path: `${base.pathname.replace(/\/$/, '')}${path}`, method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), ...target.headers } },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/** Runs `count` requests with `concurrency` in flight; returns latencies (ms) of the 2xx ones and the error count. */
export async function runLoad(count: number, concurrency: number, send: (i: number) => Promise<{ ms: number; status: number }>): Promise<{ latencies: number[]; errors: number; seconds: number }> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const r = await send(i);
      if (r.status >= 200 && r.status < 300) latencies.push(r.ms);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, errors, seconds: (performance.now() - t0) / 1000 };
}

/** One load run, as the parent sends it to the load-generator child (bench/ai/load-process.ts). */
export interface LoadJob {
  target: Target;
  path: string;
  count: number;
  concurrency: number;
  /** Chat bodies: `prefix` alone (repeated) or `prefix <offset + i>` (unique per request). */
  body: { model: string; prefix: string; unique: boolean; offset: number };
}

export interface LoadResult {
  ok: boolean;
  error?: string;
  latencies: number[];
  errors: number;
  seconds: number;
}
