import assert from 'node:assert/strict';
import { test } from 'node:test';
import Fastify from 'fastify';
import { checkDeprecation, DEPRECATED_ROUTES, registerDeprecations } from './deprecation.ts';

test('a deprecated route answers with Deprecation, Sunset and Link headers; others are untouched', async () => {
  const server = Fastify();
  registerDeprecations(server, { 'GET /v1/old': { deprecated_at: '2026-12-01T00:00:00Z', sunset: '2027-07-01T00:00:00Z', guide: 'https://example.test/migrations/v1-to-v2.md', successor: '/v2/new' } });
  server.get('/v1/old', async () => ({ ok: true }));
  server.get('/v1/new', async () => ({ ok: true }));
  const old = await server.inject({ method: 'GET', url: '/v1/old' });
  assert.equal(old.statusCode, 200, 'a deprecated route keeps working in its window');
  assert.equal(old.headers['deprecation'], `@${Date.parse('2026-12-01T00:00:00Z') / 1000}`);
  assert.equal(old.headers['sunset'], 'Thu, 01 Jul 2027 00:00:00 GMT');
  assert.equal(old.headers['link'], '<https://example.test/migrations/v1-to-v2.md>; rel="deprecation", </v2/new>; rel="successor-version"');
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
