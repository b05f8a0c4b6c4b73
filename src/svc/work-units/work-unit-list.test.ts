import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SvcError } from '../errors.ts';
import { decodeContinuationToken, encodeContinuationToken, normaliseTimestamp } from './work-unit-list.ts';

const ID = 'wu_01jaaaaaaaaaaaaaaaaaaaaaaa';

test('a continuation token round-trips the last id and is opaque', () => {
  const token = encodeContinuationToken(ID, 'acme');
  assert.match(token, /^[A-Za-z0-9_-]+$/);
  assert.equal(token.includes(ID), false);
  assert.equal(decodeContinuationToken(token, 'acme'), ID);
  assert.equal(decodeContinuationToken(encodeContinuationToken(ID, undefined), undefined), ID);
});

test("another tenant's token is refused exactly like one this service never issued", () => {
  const refusal = (fn: () => unknown) => {
    try {
      fn();
    } catch (e) {
      return (e as SvcError).message;
    }
    return 'accepted';
  };
  const theirs = encodeContinuationToken(ID, 'globex');
  assert.equal(refusal(() => decodeContinuationToken(theirs, 'acme')), refusal(() => decodeContinuationToken('garbage', 'acme')));
  assert.notEqual(refusal(() => decodeContinuationToken(theirs, 'acme')), 'accepted');
  assert.notEqual(refusal(() => decodeContinuationToken(encodeContinuationToken(ID, undefined), 'acme')), 'accepted', 'an all-tenants token does not page one tenant');
  // Tenant names may hold '.', ':' and '-': no tenant's token decodes for a tenant whose name extends it.
  assert.notEqual(refusal(() => decodeContinuationToken(encodeContinuationToken(ID, 'a'), 'a:wu')), 'accepted');
  assert.notEqual(refusal(() => decodeContinuationToken(encodeContinuationToken(ID, 'a.b'), 'a')), 'accepted');
});

test('tokens this service did not issue are invalid_request, never an empty page', () => {
  const bad = ['garbage', 'a b', Buffer.from('wul2/t:acme:not-an-id').toString('base64url'), Buffer.from(`other:${ID}`).toString('base64url'), '%%%'];
  for (const token of bad) {
    assert.throws(() => decodeContinuationToken(token, 'acme'), (e: SvcError) => e.code === 'invalid_request' && e.details?.['param'] === 'continuation_token', token);
  }
});

test('timestamps with a zone are normalised to UTC ISO for comparison with created_at', () => {
  assert.equal(normaliseTimestamp('2026-11-24T13:00:00+01:00', 'from'), '2026-11-24T12:00:00.000Z');
  assert.equal(normaliseTimestamp('2026-11-24T12:00Z', 'to'), '2026-11-24T12:00:00.000Z');
  assert.throws(() => normaliseTimestamp('2026-13-45T99:00:00Z', 'from'), (e: SvcError) => e.code === 'invalid_request');
});
