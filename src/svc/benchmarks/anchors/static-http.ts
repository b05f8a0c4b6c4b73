/**
 * The transport floor: a plain Node HTTP server on loopback that reads the
 * request body and answers bytes it already holds in memory — no auth, no
 * parsing, no storage, no records. A svc figure divided by this one, measured
 * in the same run with the same client and concurrency, is what svc's own
 * work costs on top of one HTTP exchange on this machine.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StaticHttp {
  url: string;
  close(): Promise<void>;
}

/** `GET|POST /<n>` answers `bodies[n]` (or `{}` when out of range). */
export async function startStaticHttp(bodies: readonly Uint8Array[] = []): Promise<StaticHttp> {
  const empty = Buffer.from('{}');
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const body = bodies[Number((req.url ?? '/').slice(1))] ?? empty;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.byteLength }).end(body);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
