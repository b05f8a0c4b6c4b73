import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OpLog } from '../logs/oplog.ts';
import { logRequest, requestLogLevel } from './request-log.ts';

function fakeLog(enabled: Set<string>): OpLog & { lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (_fields: unknown, message: string) => {
    if (!enabled.has(level)) throw new Error(`a ${level} line was built although ${level} is off`);
    lines.push(`${level} ${message}`);
  };
  return { file: undefined, lines, debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error'), alert: write('alert'), enabled: (l) => enabled.has(l), flush: async () => {} };
}

const request = { url: '/v1/chat/completions', method: 'POST', routeOptions: { url: '/v1/chat/completions' } } as unknown as FastifyRequest;
const reply = (statusCode: number) => ({ statusCode, elapsedTime: 1.5, getHeader: () => undefined }) as unknown as FastifyReply;

test('the level follows the status: errors for 5xx, warnings for refused credentials, info otherwise', () => {
  assert.deepEqual([requestLogLevel(200), requestLogLevel(404), requestLogLevel(401), requestLogLevel(503)], ['info', 'info', 'warn', 'error']);
});

test('a request line at a level that is off is not built; one that is on is written', () => {
  const log = fakeLog(new Set(['warn', 'error', 'alert']));
  logRequest(log, request, reply(200));
  logRequest(log, request, reply(502));
  assert.deepEqual(log.lines, ['error POST /v1/chat/completions failed: internal (502)']);
});
