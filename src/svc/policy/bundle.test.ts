import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { bundleHash, makeBundle, normalizeBundle } from './bundle.ts';
import type { BundleDoc } from './policy-schema.ts';

const YAML_TEXT = `
name: platform
version: "3"
policies:
  - id: pol_a
    effect: allow
    match:
      action: { in: [zstd, gzip] }
      tenant: acme
`;

describe('bundle hash', () => {
  it('is the same for YAML and JSON spellings with different key order', () => {
    const fromYaml = parse(YAML_TEXT) as BundleDoc;
    const fromJson = JSON.parse('{"policies":[{"match":{"tenant":"acme","action":{"in":["gzip","zstd"]}},"effect":"allow","id":"pol_a"}],"version":"3","name":"platform"}') as BundleDoc;
    assert.equal(bundleHash(normalizeBundle(fromYaml)), bundleHash(normalizeBundle(fromJson)));
  });

  it('does not change when defaults are written out', () => {
    const implicit = parse(YAML_TEXT) as BundleDoc;
    const explicit: BundleDoc = { ...implicit, default_effect: 'allow', policies: implicit.policies.map((p) => ({ ...p, priority: 0, obligations: [] })) };
    assert.equal(bundleHash(normalizeBundle(implicit)), bundleHash(normalizeBundle(explicit)));
  });

  it('changes when a policy changes', () => {
    const a = parse(YAML_TEXT) as BundleDoc;
    const b = parse(YAML_TEXT.replace('effect: allow', 'effect: deny')) as BundleDoc;
    assert.notEqual(bundleHash(normalizeBundle(a)), bundleHash(normalizeBundle(b)));
  });

  it('excludes the bundle id, so republishing identical content hashes the same', () => {
    const doc = parse(YAML_TEXT) as BundleDoc;
    assert.equal(makeBundle(doc, 'pb_01aaaaaaaaaaaaaaaaaaaaaaaa').ref.hash, makeBundle(doc, 'pb_01bbbbbbbbbbbbbbbbbbbbbbbb').ref.hash);
  });

  it('is a 64-character hex SHA-256', () => {
    assert.match(makeBundle(parse(YAML_TEXT) as BundleDoc, 'pb_01aaaaaaaaaaaaaaaaaaaaaaaa').ref.hash, /^[0-9a-f]{64}$/);
  });
});
