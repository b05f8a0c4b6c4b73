import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { checkDeprecation, DEPRECATED_ROUTES, registerDeprecations } from './deprecation.ts';

test('a deprecated route answers with Deprecation, Sunset and Link headers; others are untouched', async () => {
  const server = Fastify();
  const deprecation = { deprecated_at: '2026-12-01T00:00:00Z', sunset: '2027-07-01T00:00:00Z', guide: 'https://example.test/migrations/v1-to-v2.md', successor: '/v2/new' };
  registerDeprecations(server, { 'GET /v1/old': deprecation, 'GET /v1/raw-old': deprecation });
  server.get('/v1/old', async () => ({ ok: true }));
  server.get('/v1/raw-old', async (_request, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, reply.getHeaders() as Record<string, string>);
    reply.raw.end('bytes');
  });
  server.get('/v1/new', async () => ({ ok: true }));
  const old = await server.inject({ method: 'GET', url: '/v1/old' });
  assert.equal(old.statusCode, 200, 'a deprecated route keeps working in its window');
  assert.equal(old.headers['deprecation'], `@${Date.parse('2026-12-01T00:00:00Z') / 1000}`);
  assert.equal(old.headers['sunset'], 'Thu, 01 Jul 2027 00:00:00 GMT');
  assert.equal(old.headers['link'], '<https://example.test/migrations/v1-to-v2.md>; rel="deprecation", </v2/new>; rel="successor-version"');
  // A reply written on the raw response (as the byte responses do) carries them too.
  const raw = await server.inject({ method: 'GET', url: '/v1/raw-old' });
  assert.equal(raw.body, 'bytes');
  assert.equal(raw.headers['sunset'], 'Thu, 01 Jul 2027 00:00:00 GMT');
  const fresh = await server.inject({ method: 'GET', url: '/v1/new' });
  assert.equal(fresh.headers['deprecation'], undefined);
  assert.equal(fresh.headers['sunset'], undefined);
  await server.close();
});

test('a sunset closer than the deprecation window, or a bad date, is refused at start-up', () => {
  assert.throws(() => checkDeprecation('GET /x', { deprecated_at: '2026-12-01T00:00:00Z', sunset: '2027-01-01T00:00:00Z', guide: 'g' }), /at least 180 days/);
  assert.throws(() => checkDeprecation('GET /x', { deprecated_at: 'soon', sunset: '2027-07-01T00:00:00Z', guide: 'g' }), /ISO 8601/);
  for (const [k, d] of Object.entries(DEPRECATED_ROUTES)) assert.doesNotThrow(() => checkDeprecation(k, d));
});
