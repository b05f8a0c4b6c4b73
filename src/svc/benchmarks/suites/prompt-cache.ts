/**
 * prompt-cache-v1 (spec: Benchmark suites): exact and paraphrased prompts,
 * duplicated retrieval context, tool-solvable questions, classification,
 * hard reasoning, stale source cache and cross-tenant attempts, sent over
 * HTTP to a scratch svc whose upstream is the local mock (a flaky model that
 * answers empty messages exercises the verifier and its fallback). Every
 * request is labelled with the outcome it must have, so a false acceptance
 * is counted, not guessed. Reports hit rate, false acceptance rate,
 * large-model calls avoided, tokens avoided, latency and verifier failure
 * rate; the anchor for latency is a bare proxy hop to the same upstream.
 */
import { randomBytes } from 'node:crypto';
import { round, summarize, type BenchReport } from '../bench-report.ts';
import { startBareProxy } from '../anchors/bare-proxy.ts';
import { makeRequester, runLoad } from '../http-load.ts';
import { SCRATCH_MODELS, startScratchDeployment } from '../scratch-deployment.ts';
import type { ProductSuite, SuiteInput } from '../suite.ts';
import { SUITE_INFO } from '../suite-info.ts';

type Expect = 'hit' | 'miss';
interface ChatBody {
  model: string;
  messages: Array<{ role: string; content: string }>;
  max_tokens?: number;
  svc?: Record<string, unknown>;
}
interface Case { family: string; tenant: 'acme' | 'globex'; body: ChatBody; expect: Expect }

const SEMANTIC = { contract: 'semantic', allow_semantic_cache: true };
const chat = (content: string, extra: Partial<ChatBody> = {}): ChatBody => ({ model: SCRATCH_MODELS.large, messages: [{ role: 'system', content: 'You are a support assistant.' }, { role: 'user', content }], ...extra });

const EXACT = ['How do I export my invoices?', 'Where can I change my billing address?', 'What payment methods do you accept?', 'How do I delete my account?', 'Can I pause my subscription?', 'How do I invite a teammate?', 'Where are my API keys?', 'How do I enable two-factor authentication?', 'What is the refund window?', 'How do I download a receipt?'];
const PARAPHRASES: Array<[string, string]> = [
  ['How do I reset my password?', 'How can I reset my password?'],
  ['How do I export my invoices?', 'How can I export my invoices please?'],
  ['Where can I change my billing address?', 'Where do I change my billing address?'],
  ['What payment methods do you accept?', 'Which payment methods do you accept?'],
  ['How do I invite a teammate to my workspace?', 'How can I invite a teammate to my workspace?'],
  ['Summarize the quarterly report', 'Summarise the quarterly report'],
  ["What's the refund window for physical goods?", 'What is the refund window for physical goods?'],
  ['How do I enable two-factor authentication?', 'How can I enable two factor authentication?'],
];
/** Near-topic pairs whose answers differ: serving one for the other is a false acceptance. */
const MEANING_PAIRS: Array<[string, string]> = [
  ['Is the refund policy valid for digital goods?', 'Is the refund policy not valid for digital goods?'],
  ['Can I cancel my order?', "Can't I cancel my order?"],
  ['What was revenue in 2023?', 'What was revenue in 2024?'],
  ['Show the top 5 customers', 'Show the top 10 customers'],
  ['What is the capital of France?', 'What is the capital of Germany?'],
  ['How do I enable dark mode?', 'How do I disable dark mode?'],
  ['Is shipping free over 50 dollars?', 'Is shipping free over 100 dollars?'],
  ['Should I never share my API key?', 'Should I share my API key?'],
];
const ROUTING = [
  'What is 1234 * 5678?', 'Convert 12 km to miles', 'How many days between 2024-01-01 and 2024-03-01?',
  'Classify the sentiment of this review: the update broke my workflow', 'Is this spam: WIN A FREE CRUISE NOW', 'Categorize this ticket: my card was charged twice',
  'What are your support hours?', 'Where is the status page?',
  'Design a migration plan for moving our billing system to event sourcing and explain the trade-offs', 'Prove that the algorithm terminates, step by step',
];

/** The labelled cases, in the order they are sent (a miss that seeds the cache comes before the request that should hit it). */
export function promptCacheCases(): Case[] {
  const cases: Case[] = [];
  for (const q of EXACT) cases.push({ family: 'exact', tenant: 'acme', body: chat(q), expect: 'miss' }, { family: 'exact', tenant: 'acme', body: chat(q), expect: 'hit' });
  for (const [a, b] of PARAPHRASES) cases.push({ family: 'paraphrase', tenant: 'acme', body: chat(a, { svc: SEMANTIC }), expect: 'miss' }, { family: 'paraphrase', tenant: 'acme', body: chat(b, { svc: SEMANTIC }), expect: 'hit' });
  for (const [a, b] of MEANING_PAIRS) cases.push({ family: 'negation_numeric', tenant: 'acme', body: chat(a, { svc: SEMANTIC }), expect: 'miss' }, { family: 'negation_numeric', tenant: 'acme', body: chat(b, { svc: SEMANTIC }), expect: 'miss' });
  for (let i = 0; i < 6; i++) {
    const q = `What does section ${i + 1} of the handbook say about remote work?`;
    cases.push({ family: 'stale_source', tenant: 'acme', body: chat(q, { svc: { ...SEMANTIC, source_fingerprints: ['doc:handbook@v1'] } }), expect: 'miss' });
    cases.push({ family: 'stale_source', tenant: 'acme', body: chat(q, { svc: { ...SEMANTIC, source_fingerprints: ['doc:handbook@v2'] } }), expect: 'miss' });
  }
  const doc = (i: number) => `Retrieved passage ${i}: orders ship within two business days; expedited shipping is available for an extra fee in most regions.`;
  for (let i = 0; i < 8; i++) {
    const context = [doc(i), doc(i + 100), doc(i), doc(i + 100), doc(i + 200)].join('\n\n');
    cases.push({ family: 'duplicated_context', tenant: 'acme', body: { model: SCRATCH_MODELS.small, messages: [{ role: 'system', content: `Answer from the context.\n\n${context}` }, { role: 'user', content: `Question ${i}: how fast do orders ship?` }], svc: { contract: 'semantic', max_context_tokens: 120 } }, expect: 'miss' });
  }
  for (const q of ROUTING) cases.push({ family: 'auto_routing', tenant: 'acme', body: chat(q, { model: 'auto' }), expect: 'miss' });
  for (const q of EXACT.slice(0, 5)) cases.push({ family: 'cross_tenant', tenant: 'globex', body: chat(q), expect: 'miss' });
  for (const [a] of PARAPHRASES.slice(0, 5)) cases.push({ family: 'cross_tenant', tenant: 'globex', body: chat(a, { svc: SEMANTIC }), expect: 'miss' });
  for (let i = 0; i < 5; i++) cases.push({ family: 'verifier_failure', tenant: 'acme', body: chat(`Flaky answer ${i}`, { model: SCRATCH_MODELS.flaky }), expect: 'miss' });
  return cases;
}

async function run({ budget, progress }: SuiteInput): Promise<BenchReport> {
  const deadline = performance.now() + budget.max_seconds * 1000;
  progress({ phase: 'starting scratch deployment', step: 1, steps: 3 });
  const keys = { acme: randomBytes(24).toString('hex'), globex: randomBytes(24).toString('hex') };
  const svc = await startScratchDeployment({ upstreamBehaviors: { [SCRATCH_MODELS.flaky]: 'empty' }, tenantKeys: { [keys.acme]: 'acme', [keys.globex]: 'globex' } });
  const clients = { acme: makeRequester({ name: 'acme', url: svc.url, headers: { 'x-api-key': keys.acme } }), globex: makeRequester({ name: 'globex', url: svc.url, headers: { 'x-api-key': keys.globex } }) };
  const bare = await startBareProxy(svc.upstreamUrl);
  const viaBare = makeRequester({ name: 'bare', url: bare.url, headers: {} });
  try {
    progress({ phase: 'labelled requests', step: 2, steps: 3 });
    const cases = promptCacheCases();
    const hitLatency: number[] = [];
    const missLatency: number[] = [];
    const perFamily = new Map<string, { requests: number; hits: number }>();
    let hits = 0, expectedHits = 0, expectedHitsServed = 0, falseAcceptances = 0, mustMiss = 0, crossTenantHits = 0;
    let autoRequests = 0, autoSmall = 0, tokensAvoided = 0, flaky = 0, flakyNotServedByRequested = 0, errors = 0;
    for (const c of cases) {
      if (performance.now() > deadline) break;
      const t0 = performance.now();
      const r = await clients[c.tenant].sendWithHeaders('POST', '/v1/chat/completions', c.body);
      const ms = performance.now() - t0;
      if (r.status !== 200) errors++;
      const cache = r.headers['x-svc-cache'];
      const route = String(r.headers['x-svc-route'] ?? '');
      const hit = cache === 'exact_hit' || cache === 'semantic_hit';
      (hit ? hitLatency : missLatency).push(ms);
      if (hit) {
        hits++;
        const usage = (JSON.parse(r.body.toString('utf8')) as { usage?: { total_tokens?: number } }).usage;
        tokensAvoided += usage?.total_tokens ?? 0;
      }
      if (c.expect === 'hit') {
        expectedHits++;
        if (hit) expectedHitsServed++;
      } else if (c.family !== 'exact' && c.family !== 'paraphrase') {
        mustMiss++;
        if (hit) falseAcceptances++;
      }
      if (c.family === 'cross_tenant' && hit) crossTenantHits++;
      if (c.family === 'auto_routing') {
        autoRequests++;
        if (route.endsWith(`/${SCRATCH_MODELS.small}`)) autoSmall++;
      }
      if (c.family === 'verifier_failure') {
        flaky++;
        if (r.status !== 200 || !route.endsWith(`/${SCRATCH_MODELS.flaky}`)) flakyNotServedByRequested++;
      }
      const f = perFamily.get(c.family) ?? { requests: 0, hits: 0 };
      f.requests++;
      if (hit) f.hits++;
      perFamily.set(c.family, f);
    }
    progress({ phase: 'bare proxy anchor', step: 3, steps: 3 });
    const hop = await runLoad(100, 1, (i) => viaBare.post('/chat/completions', chat(`anchor ${i}`)), deadline);
    const sent = [...perFamily.values()].reduce((s, f) => s + f.requests, 0);
    const hitS = summarize(hitLatency);
    const missS = summarize(missLatency);
    const hopS = summarize(hop.latencies);
    const results = {
      requests: sent,
      complete: sent === cases.length,
      http_errors: errors,
      hit_rate: round(hits / Math.max(1, sent), 4),
      expected_hit_recall: round(expectedHitsServed / Math.max(1, expectedHits), 4),
      false_acceptance_rate: round(falseAcceptances / Math.max(1, mustMiss), 4),
      false_acceptances: falseAcceptances,
      cross_tenant_hits: crossTenantHits,
      large_model_calls_avoided: autoSmall + hits,
      auto_routed_to_small: `${autoSmall}/${autoRequests}`,
      tokens_avoided_by_cache: tokensAvoided,
      verifier_failure_rate: round(flakyNotServedByRequested / Math.max(1, flaky), 4),
      latency_ms: { hit: { p50: round(hitS.p50), p95: round(hitS.p95) }, miss: { p50: round(missS.p50), p95: round(missS.p95) }, bare_proxy: { p50: round(hopS.p50), p95: round(hopS.p95) } },
      per_family: Object.fromEntries(perFamily),
    };
    return {
      suite: 'prompt-cache-v1',
      results,
      table: {
        columns: ['metric', 'value'],
        rows: [
          ['requests (labelled)', `${sent}/${cases.length}`],
          ['cache hit rate (all requests)', results.hit_rate],
          ['hits served where a hit was expected', results.expected_hit_recall],
          ['false acceptance rate (negation/number/entity, stale, cross-tenant, routing cases)', results.false_acceptance_rate],
          ['cross-tenant hits', crossTenantHits],
          ['large-model calls avoided (cache hits + auto routed small)', results.large_model_calls_avoided],
          ['tokens avoided by cache hits', tokensAvoided],
          ['verifier failure rate (flaky model, fallback taken)', results.verifier_failure_rate],
          ['latency hit p50 / p95 ms', `${round(hitS.p50)} / ${round(hitS.p95)}`],
          ['latency miss p50 / p95 ms', `${round(missS.p50)} / ${round(missS.p95)}`],
          ['anchor: bare proxy hop p50 / p95 ms', `${round(hopS.p50)} / ${round(hopS.p95)}`],
        ],
      },
      notes: [
        'Scratch svc over real HTTP (SQLite, tenant-bound keys acme and globex); upstream: tools/mock-openai-upstream in its own process, mock-flaky answering empty messages.',
        'Large-model baseline: every request names mock-large or auto; a cache hit or an auto request routed to mock-small is a large-model call avoided.',
      ],
    };
  } finally {
    clients.acme.close();
    clients.globex.close();
    viaBare.close();
    await bare.close();
    await svc.close();
  }
}

export const promptCacheV1: ProductSuite = { ...SUITE_INFO['prompt-cache-v1'], run };
