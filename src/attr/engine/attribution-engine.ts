/**
 * The attribution engine: deterministic, offline, no model weights.
 *
 * answer → claim units → evidence (BM25 candidates, best span, support,
 * warrant, disagreement) → source labels and claim rows → royalty allocation
 * → usage event (hashed) → handles and draft footer → the fifteen display
 * rules → status, settlement, final footer → response.
 *
 * The engine decides `ready` vs `blocked` with the same rule evaluation the
 * response verifier runs, so a response is always internally consistent.
 */
import type { Corpus } from '../corpus/load-corpus.ts';
import type { AttributionResponse } from '../schemas/attribution-response.ts';
import { DEFAULT_ACCEPTANCE_POLICY } from '../verify/acceptance-policy.ts';
import { scanAnswer } from '../verify/answer-scan.ts';
import { evaluateDisplayRules } from '../verify/display-rules.ts';
import { analyseClaims } from './assembly/analyse-claims.ts';
import { buildEvent } from './assembly/build-event.ts';
import { draftFooter, finalizeFooter } from './assembly/build-footer.ts';
import { buildResponse } from './assembly/build-response.ts';
import { claimUnits } from './claims/claim-units.ts';
import { buildDemoAnswer } from './demo-answer.ts';
import { CorpusIndex } from './retrieval/corpus-index.ts';
import { EvidenceSearch } from './retrieval/evidence-search.ts';
import { allocate } from './royalty/allocation.ts';
import type { AttributeInput, AttributionEngine, AttributionEngineOptions } from './types.ts';
import { normalizeAnswerText } from './text/normalize.ts';
import { validateAttributeInput } from './validate-input.ts';
import { WarrantReader } from './warrant/warrant-profile.ts';

const DEFAULT_RETRIEVAL_DEPTH = 8;

export function createAttributionEngine(corpus: Corpus, options: AttributionEngineOptions = {}): AttributionEngine {
  const depth = options.retrievalDepth ?? DEFAULT_RETRIEVAL_DEPTH;
  if (!Number.isInteger(depth) || depth < 1) throw new TypeError(`retrievalDepth must be a positive integer, got ${String(depth)}`);
  const index = new CorpusIndex(corpus);
  const search = new EvidenceSearch(index, depth);
  const rederive = options.rederiveDraftIntegrity === true;
  const policy = {
    min_support_score: Math.max(DEFAULT_ACCEPTANCE_POLICY.min_support_score, options.minSupportScore ?? 0),
    min_non_escrow_share: Math.max(DEFAULT_ACCEPTANCE_POLICY.min_non_escrow_share, options.minNonEscrowShare ?? 0),
  };

  const attribute = (input: AttributeInput): AttributionResponse => {
    const revenue = validateAttributeInput(input);
    // Every rule reads the normal form, and it is also what is displayed (docs/decisions/105).
    const answer = normalizeAnswerText(input.output ?? buildDemoAnswer(index, input.prompt));
    const origin = input.context.provider ? 'provider' : input.output !== undefined ? 'caller' : 'demo';
    const units = claimUnits(answer);
    const warrants = new WarrantReader();
    const analysed = analyseClaims(units, search, policy.min_support_score, warrants);
    const allocation = allocate(
      analysed.sources.map((s) => ({ label: s.label, payable: s.source.rights_holder !== null && s.source.royalty_terms.royalty_eligible })),
      analysed.rows.map((r) => ({ supported: r.support_status === 'supported', sourceLabel: r.source_label })),
      revenue.amount,
      revenue.scale,
    );
    const event = buildEvent({
      context: input.context, origin, prompt: input.prompt, answer, corpusSha256: corpus.sha256, revenue,
      claimHashes: units.map((u) => u.hash), sources: analysed.sources, allocation,
    });
    const draft = draftFooter(analysed.sources, analysed.claims, analysed.rows, allocation, event, policy, rederive);
    const outcome = evaluateDisplayRules({
      footer: draft.footer, policy, event, answer: { text: answer, units, scan: scanAnswer(answer) }, warrants, integrityByConstruction: !rederive,
    });
    const footer = finalizeFooter(draft, outcome.errors, outcome.acceptance.attribution_gap_verdict === 'closed', options.footerSigner);
    return buildResponse(answer, footer, event, outcome.errors);
  };

  return {
    attribute,
    demoAnswer: (prompt: string) => buildDemoAnswer(index, prompt),
    stats: { sourceCount: corpus.sources.length, chunkCount: index.chunks.length, corpusSha256: corpus.sha256 },
  };
}
