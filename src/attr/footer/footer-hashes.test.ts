import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../../core/canonical-json.ts';
import { canonicalSha256 } from '../../core/hashing.ts';
import type { SourceRow } from '../schemas/attribution-response.ts';
import { checkRowHash, footerHash, rowHash, sealRow } from './footer-hashes.ts';

const rest = {
  label: 'S1', role: 'evidence', source_id: 'src', work_id: 'w', title: 'Tea · “caffeine”', uri: 'https://example.org/t', verify: 'attr://verify/source-footer/00',
  hash: 'a'.repeat(64), content_hash_prefix: 'aaaaaaaaaaaa', chunk_ids: ['c1'], rights_holder_id: null, royalty_eligible: true, published_at: null,
  updated_at: '2024-01-01', supported_claim_hashes: [], support: 0.8125, text_match: 0.5, weight: '1.000000', payout: '10.00', settlement_status: 'candidate',
  usage_metric_profile: 'p', usage_metric_scope: 's', usage_metric_methods: { support: 'a', text_match: 'b', weight: 'c', payout: 'd' },
} as unknown as Omit<SourceRow, 'row_hash'>;

test('a sealed row carries the row hash of its fields and its own canonical JSON', () => {
  const { row, canonical } = sealRow(rest);
  assert.equal(row.row_hash, canonicalSha256(rest));
  assert.equal(row.row_hash, rowHash(rest));
  assert.equal(canonical, canonicalJson(row));
});

test('checking a row hash finds edits and returns the row canonical JSON for the footer hash', () => {
  const { row } = sealRow(rest);
  const ok = checkRowHash(row);
  assert.deepEqual(ok, { valid: true, canonical: canonicalJson(row) });
  assert.equal(checkRowHash({ ...row, title: 'edited' }).valid, false);
  assert.equal(checkRowHash({ ...row, row_hash: 'b'.repeat(64) }).valid, false);
});

test('a footer hash with the rows supplied pre-serialized equals the one serializing them', () => {
  const { row, canonical } = sealRow(rest);
  const footer = { schema: 'f', source_rows: [row], claim_rows: [], footer_hash: 'x', rendered_text: 'y' } as never;
  assert.equal(footerHash(footer, new Map([[row, canonical!]])), footerHash(footer));
  assert.equal(footerHash(footer), canonicalSha256({ schema: 'f', source_rows: [row], claim_rows: [] }));
});
