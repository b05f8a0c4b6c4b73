/**
 * Minimal keep-alive HTTP load generator for the benchmarks (the product's
 * suites and the offline AI suites): one agent per target, requests timed
 * from write to last byte, sequential or with a fixed number of requests in
 * flight, stopped early at a deadline (a run's time budget).
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
      return this.send('POST', path, body).then((r) => ({ ms: r.ms, status: r.status, body: r.body.toString('utf8') }));
    },
    /** Any method; a JSON body when given; the answer as bytes. */
    send(method: string, path: string, body?: unknown): Promise<{ ms: number; status: number; body: Buffer }> {
      return this.sendWithHeaders(method, path, body);
    },
    /** As `send`, with the response headers. */
    sendWithHeaders(method: string, path: string, body?: unknown): Promise<{ ms: number; status: number; body: Buffer; headers: http.IncomingHttpHeaders }> {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const headers: Record<string, string | number> = { ...target.headers };
      if (payload !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = Buffer.byteLength(payload);
      }
      const t0 = performance.now();
      return new Promise((resolve, reject) => {
        const req = http.request({ hostname: base.hostname, port: base.port, path: `${base.pathname.replace(/\/$/, '')}${path}`, method, agent, headers }, (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, body: Buffer.concat(chunks), headers: res.headers }));
          res.on('error', reject);
        });
        req.on('error', reject);
        req.end(payload);
      });
    },
    close: () => agent.destroy(),
  };
}

/**
 * Runs `count` requests with `concurrency` in flight; returns latencies (ms)
 * of the 2xx ones, the error count and how many were sent (fewer than
 * `count` when `deadline`, a `performance.now()` time, passed first).
 */
export async function runLoad(
  count: number,
  concurrency: number,
  send: (i: number) => Promise<{ ms: number; status: number }>,
  deadline = Number.POSITIVE_INFINITY,
): Promise<{ latencies: number[]; errors: number; seconds: number; sent: number }> {
  const latencies: number[] = [];
  let errors = 0;
  let next = 0;
  const t0 = performance.now();
  const worker = async () => {
    // The first request is sent even past the deadline: a phase starved by a slow
    // earlier phase still measures one sample instead of reporting a rate of 0.
    while (next < count && (next === 0 || performance.now() < deadline)) {
      const i = next++;
      const r = await send(i);
      if (r.status >= 200 && r.status < 300) latencies.push(r.ms);
      else errors++;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return { latencies, errors, seconds: (performance.now() - t0) / 1000, sent: next };
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
  sent?: number;
}
