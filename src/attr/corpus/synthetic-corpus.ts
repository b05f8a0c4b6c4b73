/**
 * A deterministic synthetic corpus for benchmarks and load tests: `n`
 * sources of pseudo-words with a Zipf-like word distribution (so BM25 sees
 * realistic posting-list lengths), a few numbers, three chunks of four
 * sentences each. Same `n` and seed, same bytes.
 */
import { sealCorpusText } from './seal-corpus.ts';
import { CORPUS_RECORD_SCHEMA_ID } from './corpus-record.ts';

function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = ['ka', 'lo', 'mi', 'ren', 'tas', 'vo', 'qui', 'bel', 'dor', 'fen', 'gar', 'hul', 'jin', 'ner', 'pos', 'ril', 'sun', 'tor', 'ul', 'zem'];

export function syntheticCorpusText(sources: number, seed = 42): string {
  const rand = prng(seed);
  const vocabulary: string[] = [];
  for (let i = 0; i < 4000; i++) {
    const n = 2 + Math.floor(rand() * 3);
    let w = '';
    for (let j = 0; j < n; j++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    vocabulary.push(w);
  }
  // Zipf-like: index = floor(V * r^3) favours the head of the vocabulary.
  const word = () => vocabulary[Math.floor(vocabulary.length * rand() ** 3)]!;
  const sentence = () => {
    const len = 10 + Math.floor(rand() * 10);
    const words = Array.from({ length: len }, word);
    if (rand() < 0.3) words.splice(Math.floor(rand() * len), 0, String(Math.floor(rand() * 1000)));
    const s = words.join(' ');
    return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
  };
  const lines: string[] = [];
  for (let i = 0; i < sources; i++) {
    const chunks = Array.from({ length: 3 }, (_, c) => ({ chunk_id: `c${c + 1}`, text: Array.from({ length: 4 }, sentence).join(' ') }));
    lines.push(
      JSON.stringify({
        schema: CORPUS_RECORD_SCHEMA_ID,
        source_id: `syn-${i}`,
        work_id: `work-syn-${i}`,
        title: `${word()} ${word()} ${word()}`,
        uri: `https://corpus.example.org/syn/${i}`,
        rights_holder: { id: `rh-${i % 97}`, name: `Holder ${i % 97}` },
        royalty_terms: { license: 'synthetic', royalty_eligible: true },
        published_at: '2024-01-01',
        updated_at: null,
        chunks,
        content_sha256: '',
      }),
    );
  }
  return sealCorpusText(lines.join('\n'));
}
