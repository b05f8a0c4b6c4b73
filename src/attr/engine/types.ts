/**
 * Public types of the attribution engine: what callers pass in, the options
 * they may tighten, and the engine object they get back.
 */
import type { FooterSigner } from '../footer/footer-signature.ts';
import type { AttributionResponse } from '../schemas/attribution-response.ts';

/** Who asked, when, and (provider mode) which provider response is attributed. */
export interface AttributionContext {
  eventId: string;
  requestId: string;
  /** The operator boundary the event belongs to (the authenticated caller). */
  operator: string;
  /** ISO-8601 timestamp; supplied by the caller so the engine stays deterministic. */
  createdAt: string;
  provider?: { providerId: string; model: string; responseSha256: string };
}

export interface AttributeInput {
  prompt: string;
  /** The answer to attribute. Omitted: the engine's deterministic demonstration answer is used. */
  output?: string;
  /** Decimal string, >= 0, at most 18 fraction digits. */
  grossRevenue: string;
  context: AttributionContext;
}

export interface AttributionEngineOptions {
  /** Claims below this support score are not `supported` (can only be raised above the default floor). */
  minSupportScore?: number;
  /** Minimum share of the distributable total that must go to known rights holders (can only be raised). */
  minNonEscrowShare?: number;
  /** Candidate chunks considered per claim. */
  retrievalDepth?: number;
  /**
   * Re-derive the draft footer's handles, row hashes, rendering and span
   * hashes in the display rules, as the verifiers do, instead of relying on
   * the engine having just built them from the same rows. Same responses,
   * only slower; tests use it to show that.
   */
  rederiveDraftIntegrity?: boolean;
  /** The operator's footer signing key: final footers carry its Ed25519 signature (docs/decisions/136). */
  footerSigner?: FooterSigner;
}

export interface AttributionEngine {
  /** Attributes one answer. Throws `AttrError` (invalid_gross_revenue, negative_revenue, invalid_request) on bad input. */
  attribute(input: AttributeInput): AttributionResponse;
  /** The deterministic demonstration answer for a prompt, built from corpus sentences. */
  demoAnswer(prompt: string): string;
  /** Number of sources and chunks indexed (for readiness and metrics). */
  readonly stats: { sourceCount: number; chunkCount: number; corpusSha256: string };
}
