/**
 * The floor for any Node.js gateway on this machine: a pass-through proxy
 * that reads the request body, forwards it on a keep-alive undici pool and
 * writes the answer back — no parsing, no policy, no records. Measured in
 * the same run as svc, it separates what one extra HTTP hop costs here from
 * what svc's own work costs.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';

export interface BareProxy {
  url: string;
  close(): Promise<void>;
}

export async function startBareProxy(upstreamUrl: string): Promise<BareProxy> {
  const upstream = new URL(upstreamUrl);
  const pool = new Pool(upstream.origin, { connections: 256 });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      pool
        .request({ path: req.url ?? '/', method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
        .then(async (r) => {
          const body = await r.body.text();
          res.writeHead(r.statusCode, { 'content-type': 'application/json' }).end(body);
        })
        .catch(() => res.writeHead(502).end());
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${upstream.pathname.replace(/\/$/, '')}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await pool.destroy();
    },
  };
}
