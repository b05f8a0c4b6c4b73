import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChainVerifier, GENESIS_HASH, chainHash } from './hash-chain.ts';
import { canonicalJson } from './canonical-json.ts';

function buildChain(n: number) {
  const links = [];
  let prev = GENESIS_HASH;
  for (let i = 1; i <= n; i++) {
    const canonicalBody = canonicalJson({ seq: i, type: 'demo', payload: { n: i } });
    const hash = chainHash(prev, canonicalBody);
    links.push({ position: i, prevHash: prev, hash, canonicalBody });
    prev = hash;
  }
  return links;
}

test('an intact chain verifies and reports its head', () => {
  const links = buildChain(5);
  const v = new ChainVerifier(GENESIS_HASH, 1);
  for (const l of links) v.push(l);
  const r = v.report();
  assert.equal(r.ok, true);
  assert.equal(r.checked, 5);
  assert.equal(r.headHash, links[4]!.hash);
});

test('a changed body is reported at the entry that changed', () => {
  const links = buildChain(5);
  links[2] = { ...links[2]!, canonicalBody: links[2]!.canonicalBody.replace('"n":3', '"n":4') };
  const v = new ChainVerifier(GENESIS_HASH, 1);
  for (const l of links) v.push(l);
  const r = v.report();
  assert.equal(r.ok, false);
  assert.deepEqual([r.firstBreak?.kind, r.firstBreak?.position], ['entry_hash_mismatch', 3]);
});

test('a removed entry is reported as a sequence gap', () => {
  const links = buildChain(5);
  links.splice(1, 1);
  const v = new ChainVerifier(GENESIS_HASH, 1);
  for (const l of links) v.push(l);
  assert.deepEqual(v.report().firstBreak?.kind, 'sequence_gap');
});

test('canonical JSON sorts keys at every depth', () => {
  assert.equal(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: 'x' } }), '{"a":{"c":"x","d":[2,{"y":2,"z":1}]},"b":1}');
});
