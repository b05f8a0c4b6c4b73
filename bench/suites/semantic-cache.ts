/**
 * `npm run bench -- semantic-cache [--pairs N] [--entries N]`: the semantic cache's answer quality and lookup cost.
 *
 * On QQP's labelled development split (../shared/data/qqp-dev.jsonl, or SVC_QQP_FILE): for each pair, text_a is
 * stored in its own tenant and domain through the real SemanticCache and text_b looked up; a hit on label 0 is a false
 * acceptance (a wrong answer served), a hit on label 1 a correct reuse. Reported: the shipped default's operating point
 * (measured through the cache), the whole curve over thresholds with and without the meaning guard (the same
 * embedder, normaliser and guard the cache runs), the label-noise floor (label-0 pairs whose questions normalise to
 * the same text: no cache can refuse them), and lookup p50/p95 with N entries (default 100,000) in one tenant.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { LEXICAL_SIMILARITY_THRESHOLD, lexicalEmbedder } from '../../src/svc/cache/semantic/embedder.ts';
import { cosineSimilarity } from '../../src/svc/cache/semantic/lexical-embedding.ts';
import { compareMeaningMarkers } from '../../src/svc/cache/semantic/meaning-guard.ts';
import { MemorySemanticCacheStore } from '../../src/svc/cache/semantic/memory-semantic-cache-store.ts';
import { normaliseQuery } from '../../src/svc/cache/semantic/query-normaliser.ts';
import { SemanticCache } from '../../src/svc/cache/semantic/semantic-cache.ts';
import { type BenchReport, round, summarize } from '../report.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const QQP_FILE = process.env.SVC_QQP_FILE ?? path.resolve(here, '../../../shared/data/qqp-dev.jsonl');
const THRESHOLDS = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.96, 0.97, 0.98, 0.99];

interface Pair { text_a: string; text_b: string; label: number }

function arg(args: string[], name: string): number | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : undefined;
}

const entry = { source_fingerprints: ['qqp'], policy_id: 'pb_bench', value: { text: 'cached answer' }, verification: { type: 'non_empty_text' as const } };
const lookup = (domain: string, query: string) => ({ domain, query, source_fingerprints: ['qqp'], policy_id: 'pb_bench', freshness: { max_age_seconds: 3600 } });

export default async function run(args: string[]): Promise<BenchReport> {
  if (!existsSync(QQP_FILE)) throw new Error(`QQP development split not found at ${QQP_FILE} (set SVC_QQP_FILE)`);
  const rows = readFileSync(QQP_FILE, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Pair);
  // A question with no words (punctuation only) is not a cache request at all: left out and counted.
  const all = rows.filter((p) => normaliseQuery(p.text_a) !== '' && normaliseQuery(p.text_b) !== '');
  const pairs = all.slice(0, arg(args, '--pairs') ?? all.length);
  const entries = arg(args, '--entries') ?? 100_000;
  const negatives = pairs.filter((p) => p.label === 0).length;
  const positives = pairs.length - negatives;

  // 1. The shipped default, through the real cache: each pair in its own tenant and domain.
  const cache = new SemanticCache({ store: new MemorySemanticCacheStore(), ledger: { append: async () => {} } });
  let falseAccepts = 0;
  let hits = 0;
  for (const [i, p] of pairs.entries()) {
    const ctx = { principal: makePrincipal('bench', ['writer'], `t${i}`), traceId: 'bench' };
    await cache.store(ctx, { ...entry, domain: 'qqp', query: p.text_a });
    const r = await cache.lookup(ctx, lookup('qqp', p.text_b));
    if (r.hit && p.label === 0) falseAccepts++;
    if (r.hit && p.label === 1) hits++;
  }

  // 2. The curve: the same embedder, normaliser and guard, at every threshold, with and without the guard.
  const scored = await Promise.all(
    pairs.map(async (p) => {
      const a = normaliseQuery(p.text_a);
      const b = normaliseQuery(p.text_b);
      return { label: p.label, identical: a === b, sim: cosineSimilarity(await lexicalEmbedder.embed(a), await lexicalEmbedder.embed(b)), guard: compareMeaningMarkers(a, b).same };
    }),
  );
  const curve = THRESHOLDS.map((t) => {
    const at = (guarded: boolean) => {
      const fa = scored.filter((s) => s.label === 0 && s.sim >= t && (!guarded || s.guard)).length;
      const hit = scored.filter((s) => s.label === 1 && s.sim >= t && (!guarded || s.guard)).length;
      return { false_accept_rate: round(fa / negatives, 5), hit_rate: round(hit / positives, 4) };
    };
    return { threshold: t, guarded: at(true), unguarded: at(false) };
  });
  const noiseFloor = scored.filter((s) => s.label === 0 && s.identical).length;

  // 3. Lookup latency with `entries` entries in one tenant and domain.
  const big = new SemanticCache({ store: new MemorySemanticCacheStore(), ledger: { append: async () => {} } });
  const ctx = { principal: makePrincipal('bench', ['writer'], 'one-tenant'), traceId: 'bench' };
  const texts = all.flatMap((p) => [p.text_a, p.text_b]);
  for (let i = 0; i < entries; i++) await big.store(ctx, { ...entry, domain: 'big', query: i < texts.length ? texts[i]! : `${texts[i % texts.length]} (variant ${Math.floor(i / texts.length)})` });
  const samples: number[] = [];
  for (let i = 0; i < 500; i++) {
    const t = performance.now();
    await big.lookup(ctx, lookup('big', texts[(i * 37) % texts.length]!));
    samples.push(performance.now() - t);
  }
  const latency = summarize(samples);

  const far = falseAccepts / negatives;
  const results = {
    data: `QQP development split (${path.basename(QQP_FILE)}), ${pairs.length.toLocaleString('en')} pairs: ${negatives} label 0, ${positives} label 1 (${rows.length - all.length} pairs without words left out)`,
    default_threshold: LEXICAL_SIMILARITY_THRESHOLD,
    default: { false_accepts: falseAccepts, false_accept_rate: round(far, 5), paraphrase_hit_rate: round(hits / positives, 4) },
    label_noise_floor: { identical_after_normalisation_label_0: noiseFloor, rate: round(noiseFloor / negatives, 5) },
    curve,
    lookup_ms: { entries, p50: round(latency.p50), p95: round(latency.p95) },
    targets: { false_accept_rate_le_0_1_percent: far <= 0.001, paraphrase_hit_rate_ge_10_percent: hits / positives >= 0.1 },
  };
  const pct = (x: number) => `${round(100 * x, 2)} %`;
  return {
    suite: 'semantic-cache',
    results,
    table: {
      columns: ['measure', 'value', 'target'],
      rows: [
        [`default (lexical, threshold ${LEXICAL_SIMILARITY_THRESHOLD}, meaning guard): false acceptance`, `${pct(far)} (${falseAccepts} of ${negatives})`, '≤ 0.1 %'],
        ['default: paraphrase hit rate', `${pct(hits / positives)} (${hits} of ${positives})`, 'as high as safety allows (goal ≥ 10 %)'],
        ['label-noise floor: label-0 pairs identical after normalisation', `${pct(noiseFloor / negatives)} (${noiseFloor})`, '—'],
        ...curve.map((c) => [`threshold ${c.threshold}: false acceptance / hit rate (guarded · unguarded)`, `${pct(c.guarded.false_accept_rate)} / ${pct(c.guarded.hit_rate)} · ${pct(c.unguarded.false_accept_rate)} / ${pct(c.unguarded.hit_rate)}`, '—'] as [string, string, string]),
        [`lookup p50 / p95 (ms), ${entries.toLocaleString('en')} entries in one tenant`, `${results.lookup_ms.p50} / ${results.lookup_ms.p95}`, '—'],
      ],
    },
    notes: [
      'Dev-split figures. The default is measured through the real SemanticCache (store text_a, look up text_b, each pair in its own tenant and domain); the curve uses the same embedder, normaliser and meaning guard.',
      `A lookup scores at most the 2,000 newest entries of its partition (SemanticCache maxCandidates), so the cost is bounded; with ${entries.toLocaleString('en')} entries older ones are not candidates.`,
    ],
  };
}
