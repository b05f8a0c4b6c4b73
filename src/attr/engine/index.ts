/**
 * The attribution engine's public surface. The attr HTTP service, its
 * self-test and the benchmarks import from here only.
 */
export { loadCorpus, parseCorpus, type Corpus } from '../corpus/load-corpus.ts';
export type { CorpusRecord } from '../corpus/corpus-record.ts';
export { createAttributionEngine } from './attribution-engine.ts';
export type { AttributeInput, AttributionContext, AttributionEngine, AttributionEngineOptions } from './types.ts';
export { verifyAttributionResponse, type ResponseVerificationReport } from '../verify/verify-response.ts';
export { verifySourceFooter, type FooterVerificationReport } from '../verify/verify-footer.ts';
export type { AttributionResponse, AuditError, SourceFooter } from '../schemas/attribution-response.ts';
export { RESPONSE_SCHEMA_ID } from '../schemas/attribution-response.ts';
