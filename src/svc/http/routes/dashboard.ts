/**
 * The web dashboard (docs/reports.md#web-dashboard): three static files
 * shipped in the package (src/svc/http/dashboard/), served without a
 * credential because they hold no data. The page asks the user for an API
 * key and calls the `/v1` routes with it; a strict CSP keeps it to this origin.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

const DIR = path.join(import.meta.dirname, '..', 'dashboard');
const ASSETS: Record<string, string> = { 'dashboard.js': 'text/javascript; charset=utf-8', 'dashboard.css': 'text/css; charset=utf-8' };
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export async function dashboardRoutes(server: FastifyInstance): Promise<void> {
  const files = new Map(['index.html', ...Object.keys(ASSETS)].map((f) => [f, readFileSync(path.join(DIR, f))]));
  server.get('/dashboard', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('Content-Security-Policy', CSP).header('Referrer-Policy', 'no-referrer').type('text/html; charset=utf-8').send(files.get('index.html')),
  );
  server.get('/dashboard/assets/:file', { schema: { hide: true } }, async (request, reply) => {
    const file = (request.params as { file: string }).file;
    const type = Object.hasOwn(ASSETS, file) ? ASSETS[file] : undefined;
    if (!type) return reply.callNotFound();
    return reply.header('Content-Security-Policy', CSP).type(type).send(files.get(file));
  });
}
