/**
 * Runs WiCE rows through the attribution engine exactly as a caller would
 * (one corpus, the claim as `output`) and scores what matters: how many
 * claims of each label are display-ready, whether retrieval found the
 * claim's own page (recall@1/@5 over sources ranked by their best evidence
 * window) and a gold supporting sentence, on whose page each ready claim
 * was grounded (its own row's, another row's or both: ready-page.ts), and
 * the latency of each call.
 */
import { performance } from 'node:perf_hooks';
import { createAttributionEngine } from '../../../src/attr/engine/index.ts';
import { CorpusIndex } from '../../../src/attr/engine/retrieval/corpus-index.ts';
import { EvidenceSearch } from '../../../src/attr/engine/retrieval/evidence-search.ts';
import { readClaim } from '../../../src/attr/engine/support/claim-reading.ts';
import { claimUnits } from '../../../src/attr/engine/claims/claim-units.ts';
import { WICE_LABELS, wiceCorpus, type WiceLabel, type WiceRow } from './wice-corpus.ts';
import { readyPage, readyPageCounts, type ReadyPage, type ReadyPageCounts } from './ready-page.ts';

export { WICE_LABELS };

export interface WiceOutcome {
  row: number;
  label: WiceLabel;
  status: 'ready' | 'blocked';
  blockingRules: number[];
  /** Rank (1-based) of the claim's own page among sources ordered by best window support; 0 = not retrieved. */
  sourceRank: number;
  /** The chosen evidence window of the first claim unit holds a gold supporting sentence. */
  goldSentence: boolean;
  /** Support checks the claim's own-page window failed (support-judge.ts). */
  checks: string[];
  /** Weighted recall of the first claim unit in its own page's best window (0 when the page was not retrieved). */
  ownRecall: number;
  /** The source id each claim row of the footer cites (one per claim unit; null for a row without a source). */
  cited: (string | null)[];
  /** When ready: whether the cited sources are the row's own page, another row's, or both (ready-page.ts). */
  readyOn: ReadyPage | null;
  latencyMs: number;
}

export interface WiceScore {
  outcomes: WiceOutcome[];
  /** label → [ready, total] */
  ready: Record<WiceLabel, { ready: number; total: number; rate: number }>;
  /** Ready claims per label by the page they cite: own, mixed, another row's (ready-page.ts). */
  readyPages: ReadyPageCounts;
  /** Over supported claims (the ones whose page must be found). */
  recallAt1: number;
  recallAt5: number;
  goldSentenceRate: number;
  latency: number[];
  buildMs: number;
}

export function runWice(rows: readonly WiceRow[]): WiceScore {
  const t0 = performance.now();
  const { corpus, sources } = wiceCorpus(rows);
  const engine = createAttributionEngine(corpus);
  const buildMs = performance.now() - t0;
  // Retrieval is measured on its own search (same index code, same depth) so ranks of every source are visible.
  const search = new EvidenceSearch(new CorpusIndex(corpus), 8);
  const outcomes: WiceOutcome[] = rows.map((row, i) => {
    const start = performance.now();
    const r = engine.attribute({
      prompt: 'wice', output: row.claim, grossRevenue: '10.00',
      context: { eventId: `evt_wice_${i}`, requestId: `req_wice_${i}`, operator: 'wice', createdAt: '2025-01-01T00:00:00Z' },
    });
    const latencyMs = performance.now() - start;
    const own = sources[i]!;
    const unit = claimUnits(row.claim)[0];
    let sourceRank = 0;
    let goldSentence = false;
    let checks: string[] = [];
    let ownRecall = 0;
    if (unit) {
      const found = search.search(readClaim(unit.text));
      const ranked = [...found.bestBySource.entries()].sort((a, b) => b[1].support - a[1].support || a[0].localeCompare(b[0]));
      sourceRank = ranked.findIndex(([id]) => id === own.sourceId) + 1;
      const mine = found.bestBySource.get(own.sourceId);
      if (mine) {
        checks = mine.checks;
        ownRecall = mine.recall;
        const gold = new Set(row.supporting_sentences.flat());
        for (const s of gold) {
          const p = own.places.get(s);
          if (p && p.chunkId === mine.chunk.chunkId && p.start < mine.end && p.end > mine.start) goldSentence = true;
        }
      }
    }
    const cited = r.source_footer.claim_rows.map((c) => c.source_id);
    const readyOn = r.status === 'ready' ? readyPage(own.sourceId, cited) : null;
    return { row: i, label: row.label, status: r.status, blockingRules: r.source_footer.blocking_rules, sourceRank, goldSentence, checks, ownRecall, cited, readyOn, latencyMs };
  });
  const ready = Object.fromEntries(
    WICE_LABELS.map((label) => {
      const mine = outcomes.filter((o) => o.label === label);
      const n = mine.filter((o) => o.status === 'ready').length;
      return [label, { ready: n, total: mine.length, rate: mine.length === 0 ? 0 : n / mine.length }];
    }),
  ) as WiceScore['ready'];
  const supported = outcomes.filter((o) => o.label === 'supported');
  const share = (f: (o: WiceOutcome) => boolean) => (supported.length === 0 ? 0 : supported.filter(f).length / supported.length);
  return {
    outcomes, ready, buildMs,
    readyPages: readyPageCounts(outcomes),
    recallAt1: share((o) => o.sourceRank === 1),
    recallAt5: share((o) => o.sourceRank >= 1 && o.sourceRank <= 5),
    goldSentenceRate: share((o) => o.goldSentence),
    latency: outcomes.map((o) => o.latencyMs),
  };
}
