/**
 * The JSON body parser of attr. fastify's default parser reports a
 * prototype-poisoning key (`__proto__`, `constructor.prototype`) as "not
 * valid JSON"; clients deserve the precise reason, so this parser tells the
 * two apart: malformed text → `invalid_request`, a forbidden key →
 * `forbidden_json_key` (issue 18, item 14). Bodies are refused, never
 * sanitised. A `Content-Encoding` other than identity is refused before any
 * byte is parsed (415): attr does not decompress request bodies.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AttrError } from '../errors.ts';

class ForbiddenKey extends Error {
  readonly key: string;
  constructor(key: string) {
    super(key);
    this.key = key;
  }
}

/** JSON.parse keeps `__proto__` as an own key, so a reviver sees every key as written. */
function rejectPoisonKeys(this: unknown, key: string, value: unknown): unknown {
  if (key === '__proto__') throw new ForbiddenKey('__proto__');
  if (key === 'constructor' && value !== null && typeof value === 'object' && Object.hasOwn(value, 'prototype')) throw new ForbiddenKey('constructor.prototype');
  return value;
}

/** Parses a request body: `invalid_request` when it is not JSON, `forbidden_json_key` for a poisoning key. */
export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new AttrError('invalid_request', 'request body is empty or has an invalid length');
  try {
    return JSON.parse(text, rejectPoisonKeys);
  } catch (err) {
    if (err instanceof ForbiddenKey) {
      throw new AttrError('forbidden_json_key', `request body contains the forbidden key "${err.key}"`, { details: { key: err.key } });
    }
    throw new AttrError('invalid_request', 'request body is not valid JSON');
  }
}

/** A body with a Content-Encoding (gzip, br, …) is refused with 415. */
export function refuseEncodedBody(request: FastifyRequest): void {
  const encoding = request.headers['content-encoding'];
  if (encoding === undefined || encoding.trim().toLowerCase() === 'identity' || encoding.trim() === '') return;
  throw new AttrError('unsupported_media_type', 'request bodies must not be content-encoded (Content-Encoding is not supported)', { details: { content_encoding: encoding.slice(0, 32) } });
}

/** Installs the parser and the encoding check on `app`. */
export function installJsonBodyParsing(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  app.addHook('preParsing', async (request) => refuseEncodedBody(request));
}
