import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AttrError } from '../errors.ts';
import { parseCorpus } from './load-corpus.ts';
import { sealCorpusText } from './seal-corpus.ts';

const record = (id: string, text = 'Some text.') =>
  JSON.stringify({
    schema: 'attr-corpus-source/v1', source_id: id, work_id: 'w', title: 't', uri: 'https://example.org/x',
    rights_holder: null, royalty_terms: { license: 'l', royalty_eligible: false }, published_at: null, updated_at: '2024-01-02',
    chunks: [{ chunk_id: 'c1', text }], content_sha256: '0'.repeat(64),
  });

test('a sealed corpus loads and keeps its source order', () => {
  const c = parseCorpus(sealCorpusText(`${record('a')}\n# comment\n\n${record('b')}`));
  assert.deepEqual(c.sources.map((s) => s.source_id), ['a', 'b']);
});

test('a stale content hash is reported with its line number', () => {
  const lines = sealCorpusText(`${record('a')}\n${record('b')}`).split('\n');
  lines[1] = lines[1]!.replace('Some text.', 'Edited text.');
  assert.throws(() => parseCorpus(lines.join('\n')), (e: unknown) => e instanceof AttrError && e.code === 'corpus_hash_mismatch' && e.details?.line === 2);
});

test('schema violations, bad JSON and duplicate ids are typed errors naming the line', () => {
  assert.throws(() => parseCorpus('{not json'), (e: unknown) => e instanceof AttrError && e.code === 'corpus_invalid' && /line 1/.test(e.message));
  assert.throws(() => parseCorpus(sealCorpusText(record('a')).replace('"uri":"https://example.org/x"', '"uri":"nope"')), /line 1: \/uri/);
  assert.throws(() => parseCorpus(sealCorpusText(`${record('a')}\n${record('a')}`)), /already used on line 1/);
  assert.throws(() => parseCorpus('\n\n'), /no sources/);
});
