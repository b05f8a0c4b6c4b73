/**
 * `npm run bench -- semantic-cache [--pairs N] [--entries N] [--pairs-file F]`: the semantic cache's answer quality
 * and lookup cost.
 *
 * On QQP's labelled development split (../shared/data/qqp-dev.jsonl, or SVC_QQP_FILE, or --pairs-file): for each
 * pair, text_a is stored in its own tenant and domain through the real SemanticCache and text_b looked up; a hit on
 * label 0 is a false acceptance (a wrong answer served), a hit on label 1 a correct reuse. Reported:
 * - the shipped default's operating point, measured through the cache, overall and on each half of the split (pairs
 *   with even and odd ids: a threshold that only fits one half shows here);
 * - the whole curve (false acceptance and hit rate over thresholds) for each mode, scored with the cache's own
 *   judgement (pair-judge.ts): the built-in alignment (the default), the hashed n-gram cosine without any guard (what
 *   a bare similarity threshold gives, for comparison), and the embeddings mode when an OpenAI-compatible upstream is
 *   configured for the run (SVC_BENCH_EMBEDDINGS_URL, SVC_BENCH_EMBEDDINGS_MODEL, optional
 *   SVC_BENCH_EMBEDDINGS_API_KEY_ENV naming the variable that holds the key);
 * - the label-noise floor (label-0 pairs whose questions normalise to the same text);
 * - lookup p50/p95 with N entries (default 100,000) in one tenant and domain.
 * `--pairs N` runs a slice (npm test runs one); the full split is the default.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { calibrateThreshold, curveOf } from '../../src/svc/cache/semantic/calibration.ts';
import { type Embedder, LEXICAL_SIMILARITY_THRESHOLD, lexicalEmbedder } from '../../src/svc/cache/semantic/embedder.ts';
import { cosineSimilarity, lexicalEmbedding } from '../../src/svc/cache/semantic/lexical-embedding.ts';
import { MemorySemanticCacheStore } from '../../src/svc/cache/semantic/memory-semantic-cache-store.ts';
import { scorePair } from '../../src/svc/cache/semantic/pair-judge.ts';
import { ProviderEmbedder } from '../../src/svc/cache/semantic/provider-embedder.ts';
import { normaliseQuery } from '../../src/svc/cache/semantic/query-normaliser.ts';
import { SemanticCache } from '../../src/svc/cache/semantic/semantic-cache.ts';
import { type BenchReport, round, summarize } from '../report.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
export const QQP_FILE = process.env.SVC_QQP_FILE ?? path.resolve(here, '../../../shared/data/qqp-dev.jsonl');
const THRESHOLDS = [0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.88, 0.9, 0.91, 0.92, 0.925, 0.93, 0.94, 0.95, 0.96, 0.98, 1];

interface Pair { id?: number; text_a: string; text_b: string; label: number }

function arg(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

const entry = { source_fingerprints: ['qqp'], policy_id: 'pb_bench', value: { text: 'cached answer' }, verification: { type: 'non_empty_text' as const } };
const lookup = (domain: string, query: string) => ({ domain, query, source_fingerprints: ['qqp'], policy_id: 'pb_bench', freshness: { max_age_seconds: 3600 } });

/** Store a, look up b, each pair in its own tenant, through the real cache: how many label-0 / label-1 pairs hit. */
async function throughCache(pairs: readonly Pair[], embedder: Embedder): Promise<{ falseAccepts: number; hits: number; fa: Pair[]; hit: Pair[] }> {
  const cache = new SemanticCache({ store: new MemorySemanticCacheStore(), ledger: { append: async () => {} }, embedder });
  let falseAccepts = 0;
  let hits = 0;
  const fa: Pair[] = [];
  const hit: Pair[] = [];
  for (const [i, p] of pairs.entries()) {
    const ctx = { principal: makePrincipal('bench', ['writer'], `t${i}`), traceId: 'bench' };
    await cache.store(ctx, { ...entry, domain: 'qqp', query: p.text_a });
    const r = await cache.lookup(ctx, lookup('qqp', p.text_b));
    if (r.hit && p.label === 0) {
      falseAccepts++;
      fa.push(p);
    }
    if (r.hit && p.label === 1) {
      hits++;
      hit.push(p);
    }
  }
  return { falseAccepts, hits, fa, hit };
}

/** An OpenAI-compatible /embeddings client for the embeddings mode's curve (only when the run configures one). */
function benchEmbedder(): Embedder | undefined {
  const url = process.env.SVC_BENCH_EMBEDDINGS_URL;
  const model = process.env.SVC_BENCH_EMBEDDINGS_MODEL;
  if (!url || !model) return undefined;
  const keyEnv = process.env.SVC_BENCH_EMBEDDINGS_API_KEY_ENV;
  const key = keyEnv ? process.env[keyEnv] : undefined;
  return new ProviderEmbedder({
    provider: 'bench',
    model,
    client: {
      async postJson(p, body) {
        const res = await fetch(`${url.replace(/\/$/, '')}${p}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) }, body: JSON.stringify(body) });
        if (!res.ok) throw new Error(`embeddings upstream answered ${res.status}`);
        return res.json();
      },
    },
  });
}

export default async function run(args: string[]): Promise<BenchReport> {
  const file = arg(args, '--pairs-file') ?? QQP_FILE;
  if (!existsSync(file)) throw new Error(`QQP development split not found at ${file} (set SVC_QQP_FILE or --pairs-file)`);
  const rows = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Pair);
  // A question with no words (punctuation only) is not a cache request at all: left out and counted.
  const all = rows.filter((p) => normaliseQuery(p.text_a) !== '' && normaliseQuery(p.text_b) !== '');
  const pairs = all.slice(0, Number(arg(args, '--pairs') ?? all.length));
  const entries = Number(arg(args, '--entries') ?? 100_000);
  const negatives = pairs.filter((p) => p.label === 0).length;
  const positives = pairs.length - negatives;
  const pct = (x: number) => `${round(100 * x, 3)} %`;

  // 1. The shipped default, through the real cache, overall and per half.
  const shipped = await throughCache(pairs, lexicalEmbedder);
  const halves = [0, 1].map((h) => {
    const half = pairs.filter((p, i) => (p.id ?? i) % 2 === h);
    const members = new Set(half);
    const neg = half.filter((p) => p.label === 0).length;
    const fa = shipped.fa.filter((p) => members.has(p)).length;
    const hits = shipped.hit.filter((p) => members.has(p)).length;
    const pos = half.length - neg;
    return { half: h === 0 ? 'even ids' : 'odd ids', negatives: neg, false_accepts: fa, false_accept_rate: round(fa / Math.max(1, neg), 5), positives: pos, hits, paraphrase_hit_rate: round(hits / Math.max(1, pos), 4) };
  });

  // 2. The curves: the cache's own judgement at every threshold, per mode.
  const modes: Array<{ mode: string; scored: Array<{ label: number; similarity: number }> }> = [];
  const alignment = await Promise.all(pairs.map(async (p) => ({ label: p.label, similarity: (await scorePair(lexicalEmbedder, p.text_a, p.text_b)).similarity })));
  modes.push({ mode: `lexical alignment (default, ${lexicalEmbedder.id})`, scored: alignment });
  modes.push({
    mode: 'hashed n-gram cosine, no guard (a bare similarity threshold, for comparison)',
    scored: pairs.map((p) => ({ label: p.label, similarity: cosineSimilarity(lexicalEmbedding(normaliseQuery(p.text_a)), lexicalEmbedding(normaliseQuery(p.text_b))) })),
  });
  const provider = benchEmbedder();
  if (provider) {
    const scored: Array<{ label: number; similarity: number }> = [];
    for (const p of pairs) scored.push({ label: p.label, similarity: (await scorePair(provider, p.text_a, p.text_b)).similarity });
    modes.push({ mode: `embeddings mode (${provider.id}, alignment refusals on top)`, scored });
  }
  const curves = modes.map((m) => ({ mode: m.mode, curve: curveOf(m.scored, THRESHOLDS).map((c) => ({ threshold: c.threshold, false_accept_rate: round(c.false_accept_rate, 5), hit_rate: round(c.hit_rate, 4) })) }));
  const identical = pairs.filter((p) => normaliseQuery(p.text_a) === normaliseQuery(p.text_b));
  const noiseFloor = identical.filter((p) => p.label === 0).length;

  // 3. What calibration on these pairs would choose for the default embedder at the 0.1 % target (when enough label-0 pairs).
  let calibrated: Awaited<ReturnType<typeof calibrateThreshold>> | undefined;
  let calibrationRefusal: string | undefined;
  try {
    calibrated = await calibrateThreshold(pairs.map((p) => ({ text_a: p.text_a, text_b: p.text_b, label: p.label === 0 ? 0 : 1 })), 0.001, lexicalEmbedder);
  } catch (err) {
    calibrationRefusal = err instanceof Error ? err.message : String(err);
  }

  // 4. Lookup latency with `entries` entries in one tenant and domain.
  const big = new SemanticCache({ store: new MemorySemanticCacheStore(entries), ledger: { append: async () => {} } });
  const ctx = { principal: makePrincipal('bench', ['writer'], 'one-tenant'), traceId: 'bench' };
  const texts = all.flatMap((p) => [p.text_a, p.text_b]);
  for (let i = 0; i < entries; i++) await big.store(ctx, { ...entry, domain: 'big', query: i < texts.length ? texts[i]! : `${texts[i % texts.length]} (variant ${Math.floor(i / texts.length)})` });
  const samples: number[] = [];
  let latencyHits = 0;
  for (let i = 0; i < 500; i++) {
    const t = performance.now();
    const r = await big.lookup(ctx, lookup('big', texts[(i * 37) % Math.min(texts.length, entries)]!));
    samples.push(performance.now() - t);
    if (r.hit) latencyHits++;
  }
  const latency = summarize(samples);

  const far = shipped.falseAccepts / negatives;
  const hitRate = shipped.hits / positives;
  const results = {
    data: `${path.basename(file)}, ${pairs.length.toLocaleString('en')} pairs: ${negatives} label 0, ${positives} label 1 (${rows.length - all.length} pairs without words left out)`,
    operating_point: { embedder: lexicalEmbedder.id, threshold: LEXICAL_SIMILARITY_THRESHOLD },
    default: { false_accepts: shipped.falseAccepts, false_accept_rate: round(far, 5), hits: shipped.hits, paraphrase_hit_rate: round(hitRate, 4) },
    halves,
    // How often the labels call the same text two questions: no judgement that serves identical text can be more precise.
    label_noise_floor: { identical_after_normalisation_label_0: noiseFloor, identical_after_normalisation: identical.length, rate: round(noiseFloor / Math.max(1, negatives), 5) },
    curves,
    calibration_at_0_1_percent: calibrated ? { threshold: calibrated.threshold, false_accept_rate: round(calibrated.false_accept_rate, 5), hit_rate: round(calibrated.hit_rate, 4) } : { refused: calibrationRefusal },
    embeddings_mode: provider ? 'measured' : 'not measured: no embeddings upstream configured for this run (SVC_BENCH_EMBEDDINGS_URL, SVC_BENCH_EMBEDDINGS_MODEL)',
    lookup_ms: { entries, p50: round(latency.p50, 3), p95: round(latency.p95, 3), lookups: samples.length, hits: latencyHits },
    targets: { false_accept_rate_le_0_1_percent: far <= 0.001, paraphrase_hit_rate_ge_10_percent: hitRate >= 0.1 },
  };
  const rowsOut: Array<[string, string, string]> = [
    [`shipped default (${lexicalEmbedder.id}, threshold ${LEXICAL_SIMILARITY_THRESHOLD}): false acceptance`, `${pct(far)} (${shipped.falseAccepts} of ${negatives})`, '≤ 0.1 %'],
    ['shipped default: paraphrase hit rate', `${pct(hitRate)} (${shipped.hits} of ${positives})`, 'as high as safety allows (goal ≥ 10 %)'],
    ...halves.map((h) => [`shipped default, ${h.half}: false acceptance / paraphrase hit rate`, `${pct(h.false_accept_rate)} (${h.false_accepts} of ${h.negatives}) / ${pct(h.paraphrase_hit_rate)} (${h.hits} of ${h.positives})`, '≤ 0.1 %'] as [string, string, string]),
    ['label-noise floor: label-0 pairs identical after normalisation', `${pct(noiseFloor / Math.max(1, negatives))} (${noiseFloor}; ${noiseFloor} of the ${identical.length} identical pairs)`, '—'],
  ];
  for (const c of curves) {
    for (const point of c.curve) rowsOut.push([`${c.mode} @ ${point.threshold}: false acceptance / hit rate`, `${pct(point.false_accept_rate)} / ${pct(point.hit_rate)}`, '—']);
  }
  rowsOut.push([
    'calibration on these pairs at --max-false-accept 0.001 (default embedder)',
    calibrated ? `threshold ${calibrated.threshold}: ${pct(calibrated.false_accept_rate)} / ${pct(calibrated.hit_rate)}` : `refused: ${calibrationRefusal}`,
    '—',
  ]);
  rowsOut.push([`lookup p50 / p95 (ms), ${entries.toLocaleString('en')} entries in one tenant`, `${results.lookup_ms.p50} / ${results.lookup_ms.p95}`, '—']);
  return {
    suite: 'semantic-cache',
    results,
    table: { columns: ['measure', 'value', 'target'], rows: rowsOut },
    notes: [
      'Dev-split figures. The default is measured through the real SemanticCache (store text_a, look up text_b, each pair in its own tenant and domain); the curves use the same judgement (pair-judge.ts).',
      `Embeddings mode: ${results.embeddings_mode}.`,
      'A text lookup scores every entry with the query\'s lookup key (however old: the key is indexed) plus the 200 newest of its partition (typos change the key).',
    ],
  };
}
