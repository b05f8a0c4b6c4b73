import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { SvcError } from '../errors.ts';
import { assertDeclaredDigest, declaredBody, declaredDigest, readDeclared } from './declared-body.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function* pieces(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p;
}

async function drain(source: AsyncIterable<Uint8Array>): Promise<number> {
  let n = 0;
  for await (const p of source) n += p.length;
  return n;
}

async function reason(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof SvcError);
    return err.details?.reason;
  }
  return 'no error';
}

describe('declared bodies', () => {
  const a = new Uint8Array([1, 2, 3]);
  const b = new Uint8Array([4, 5]);

  it('passes a body that matches its length and digest through unchanged', async () => {
    const body = declaredBody({ source: pieces(a, b), length: '5', sha256: sha(new Uint8Array([1, 2, 3, 4, 5])).toUpperCase() });
    assert.equal(await drain(readDeclared(body, { hash: true })), 5);
  });

  it('fails as soon as the body runs past its declared length', async () => {
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (;;) {
        pulled++;
        yield a;
      }
    }
    assert.equal(await reason(drain(readDeclared({ source: endless(), length: 4 }))), 'length_mismatch');
    assert.equal(pulled, 2, 'stops at the first piece past the length');
  });

  it('fails a body that ends short, and one whose transport breaks off', async () => {
    assert.equal(await reason(drain(readDeclared({ source: pieces(a), length: 5 }))), 'length_mismatch');
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield a;
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    }
    assert.equal(await reason(drain(readDeclared({ source: broken(), length: 5 }))), 'length_mismatch');
  });

  it('checks the digest at the end only when asked to hash', async () => {
    const body = { source: pieces(a, b), length: 5, sha256: '0'.repeat(64) };
    assert.equal(await reason(drain(readDeclared(body, { hash: true }))), 'digest_mismatch');
    assert.equal(await drain(readDeclared({ ...body, source: pieces(a, b) })), 5, 'the consumer checks it (ingest)');
    assert.throws(() => assertDeclaredDigest(body, sha(a)), (e: SvcError) => e.details?.reason === 'digest_mismatch');
    assert.doesNotThrow(() => assertDeclaredDigest({ sha256: undefined }, sha(a)));
  });

  it('refuses a missing or malformed declaration', () => {
    const source = pieces();
    assert.throws(() => declaredBody({ source, length: undefined, sha256: undefined }), (e: SvcError) => e.details?.reason === 'length_required');
    for (const length of ['', '-1', '1e3', '0x10', '99999999999999999']) assert.throws(() => declaredBody({ source, length, sha256: undefined }), SvcError, length);
    assert.throws(() => declaredBody({ source, length: '1', sha256: 'abc' }), SvcError);
  });

  it('reads a trailing digest only once the bytes have ended, and fails the stream when it never came', async () => {
    const whole = sha(new Uint8Array([1, 2, 3, 4, 5]));
    let trailer: string | undefined;
    let readsBeforeEnd = 0;
    let ended = false;
    async function* source(): AsyncGenerator<Uint8Array> {
      yield a;
      yield b;
      ended = true;
    }
    const body = declaredBody({ source: source(), length: '5', sha256: undefined, trailingSha256: () => (ended ? trailer : (readsBeforeEnd++, undefined)) });
    trailer = whole.toUpperCase();
    assert.equal(await drain(readDeclared(body)), 5);
    assert.equal(readsBeforeEnd, 0, 'not read while the bytes stream');
    assert.equal(declaredDigest(body), whole, 'lowercased');
    assert.doesNotThrow(() => assertDeclaredDigest(body, whole));
    assert.throws(() => assertDeclaredDigest(body, sha(a)), (e: SvcError) => e.details?.reason === 'digest_mismatch');

    // Announced, never sent (or not a digest): the stream itself fails at its end, before any consumer commits.
    for (const sent of [undefined, 'xyz']) {
      const missing = { source: pieces(a, b), length: 5, trailingSha256: () => sent };
      assert.equal(await reason(drain(readDeclared(missing))), 'digest_missing', String(sent));
      assert.throws(() => assertDeclaredDigest(missing, whole), (e: SvcError) => e.details?.reason === 'digest_missing');
    }
    // With `hash`, the trailing digest is checked against the bytes that came.
    assert.equal(await reason(drain(readDeclared({ source: pieces(a, b), length: 5, trailingSha256: () => sha(a) }, { hash: true }))), 'digest_mismatch');
    assert.equal(await drain(readDeclared({ source: pieces(a, b), length: 5, trailingSha256: () => whole }, { hash: true })), 5);
  });

  it('refuses a digest declared both up front and as a trailer', () => {
    assert.throws(() => declaredBody({ source: pieces(), length: '1', sha256: '0'.repeat(64), trailingSha256: () => undefined }), (e: SvcError) => e.details?.reason === 'digest_declared_twice');
  });
});
