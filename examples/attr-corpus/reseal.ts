// Recomputes content_sha256 of every source in a corpus file after its text was edited:
//   node examples/attr-corpus/reseal.ts examples/attr-corpus/corpus.jsonl
import { readFileSync, writeFileSync } from 'node:fs';
import { sealCorpusText } from '../../src/attr/corpus/seal-corpus.ts';

const file = process.argv[2];
if (!file) {
  console.error('usage: node examples/attr-corpus/reseal.ts <corpus.jsonl>');
  process.exit(2);
}
writeFileSync(file, sealCorpusText(readFileSync(file, 'utf8')));
