import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REDACTED, redactSensitive } from './redact.ts';

test('redacts sensitive keys at any depth, inside arrays too', () => {
  const out = redactSensitive({ a: { prompt: 'hi', nested: [{ secret: 's', keep: 1 }] }, Token: 'abc', ok: 'x' }) as any;
  assert.equal(out.a.prompt, REDACTED);
  assert.equal(out.a.nested[0].secret, REDACTED);
  assert.equal(out.a.nested[0].keep, 1);
  assert.equal(out.Token, REDACTED);
  assert.equal(out.ok, 'x');
});
