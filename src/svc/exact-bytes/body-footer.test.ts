import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { SvcError } from '../errors.ts';
import { FOOTER_BYTES, decodeFooter, encodeFooter, splitFooter } from './body-footer.ts';
import { declaredBody, declaredDigest, readDeclared, sizeHintOf } from './declared-body.ts';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

async function* pieces(...parts: Uint8Array[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield p;
}

/** `bytes` cut at the given offsets. */
function cut(bytes: Buffer, at: number[]): Buffer[] {
  const out: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    out.push(bytes.subarray(from, to));
    from = to;
  }
  return out;
}

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const p of source) parts.push(Buffer.from(p));
  return Buffer.concat(parts);
}

async function reason(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof SvcError, String(err));
    return err.details?.reason ?? err.code;
  }
  return 'no error';
}

describe('body footer', () => {
  it('round-trips a length and a digest', () => {
    const digest = sha(Buffer.from('x'));
    assert.deepEqual(decodeFooter(encodeFooter(123_456_789_012, digest.toUpperCase())), { length: 123_456_789_012, sha256: digest });
    assert.equal(encodeFooter(0, digest).length, FOOTER_BYTES);
    assert.throws(() => encodeFooter(-1, digest), RangeError);
    assert.throws(() => encodeFooter(1, 'abc'), RangeError);
  });

  it('passes the object bytes on and reads the footer, wherever the transport cut the body', async () => {
    const object = randomBytes(200);
    const body = Buffer.concat([object, encodeFooter(object.length, sha(object))]);
    // Every single cut, and a few runs of many small pieces (pieces shorter than the footer).
    const cuts: number[][] = [[]];
    for (let i = 1; i < body.length; i++) cuts.push([i]);
    for (const step of [1, 7, 43, 44, 45]) cuts.push(Array.from({ length: Math.floor((body.length - 1) / step) }, (_, k) => (k + 1) * step));
    for (const at of cuts) {
      const split = splitFooter(pieces(...cut(body, at)));
      assert.equal(split.footer(), undefined, 'no footer before the end');
      assert.deepEqual(await collect(split.bytes), object, `cut at ${at.join(',')}`);
      assert.deepEqual(split.footer(), { length: object.length, sha256: sha(object) });
    }
  });

  it('never passes the footer\'s bytes on as object bytes, and copies what it holds back', async () => {
    const object = Buffer.from('hello');
    const body = Buffer.concat([object, encodeFooter(object.length, sha(object))]);
    const split = splitFooter(pieces(body));
    const seen: Buffer[] = [];
    for await (const p of split.bytes) {
      seen.push(Buffer.from(p));
      body.fill(0); // the transport reusing its memory must not change the footer held back
    }
    assert.deepEqual(Buffer.concat(seen), object);
    assert.deepEqual(split.footer(), { length: 5, sha256: sha(object) });
  });

  it('refuses a body that ends without a footer', async () => {
    assert.equal(await reason(collect(splitFooter(pieces(Buffer.alloc(10))).bytes)), 'footer_missing');
    assert.equal(await reason(collect(splitFooter(pieces(randomBytes(500))).bytes)), 'footer_missing');
    assert.equal(await reason(collect(splitFooter(pieces()).bytes)), 'footer_missing');
  });
});

describe('a declared body with a footer', () => {
  const object = randomBytes(3000);
  const footed = (footer: Buffer, ...extra: Buffer[]) => declaredBody({ source: pieces(...cut(object, [1000, 2000]), ...extra, footer), length: undefined, sha256: undefined, footer: { maxLength: 10_000 } });

  it('streams the object and checks the footer\'s length and digest at its end', async () => {
    const body = footed(encodeFooter(object.length, sha(object)));
    assert.equal(body.length, undefined);
    assert.equal(sizeHintOf(body), 10_000, 'sized by its bound until the footer comes');
    assert.deepEqual(await collect(readDeclared(body, { hash: true })), object);
    assert.equal(declaredDigest(body), sha(object));
  });

  it('refuses a footer whose length or digest does not match the bytes', async () => {
    assert.equal(await reason(collect(readDeclared(footed(encodeFooter(object.length + 1, sha(object)))))), 'length_mismatch');
    assert.equal(await reason(collect(readDeclared(footed(encodeFooter(object.length, sha(Buffer.from('other')))), { hash: true }))), 'digest_mismatch');
  });

  it('refuses a body that runs past the route\'s bound before its footer comes', async () => {
    const big = randomBytes(6000);
    const body = declaredBody({ source: pieces(big, big, encodeFooter(12_000, sha(Buffer.concat([big, big])))), length: undefined, sha256: undefined, footer: { maxLength: 10_000 } });
    assert.equal(await reason(collect(readDeclared(body))), 'payload_too_large');
  });

  it('takes no other digest declaration beside the footer', () => {
    assert.throws(
      () => declaredBody({ source: pieces(), length: undefined, sha256: sha(object), footer: { maxLength: 10 } }),
      (e: SvcError) => e.details?.reason === 'digest_declared_twice',
    );
    assert.throws(
      () => declaredBody({ source: pieces(), length: undefined, sha256: undefined, trailingSha256: () => undefined, footer: { maxLength: 10 } }),
      (e: SvcError) => e.details?.reason === 'digest_declared_twice',
    );
  });

  it('names a transport that broke off before the footer', async () => {
    async function* broken(): AsyncGenerator<Uint8Array> {
      yield object;
      throw new Error('socket hang up');
    }
    const body = declaredBody({ source: broken(), length: undefined, sha256: undefined, footer: { maxLength: 10_000 } });
    assert.equal(await reason(collect(readDeclared(body))), 'length_mismatch');
  });
});
