/**
 * What the verifier looks for in the answer text itself: citation markers,
 * links, temporal wording and claims of hidden model reliance.
 */
import { findCitationMarkers, type CitationMarker } from '../engine/text/citation-markers.ts';
import { findLinkUris } from '../engine/text/links.ts';
import { TEMPORAL_MARKERS } from '../engine/warrant/lexicon.ts';
import { MODEL_RELIANCE_PATTERNS } from './model-reliance-phrases.ts';

export interface AnswerScan {
  citationMarkers: CitationMarker[];
  linkUris: string[];
  temporalMarkers: string[];
  modelRelianceMarkers: string[];
}

function uniqueLower(matches: Iterable<string>): string[] {
  return [...new Set([...matches].map((m) => m.toLowerCase().replace(/\s+/g, ' ')))];
}

export function scanAnswer(answerText: string): AnswerScan {
  return {
    citationMarkers: findCitationMarkers(answerText),
    linkUris: findLinkUris(answerText),
    temporalMarkers: uniqueLower([...answerText.matchAll(new RegExp(TEMPORAL_MARKERS.source, 'gi'))].map((m) => m[0])),
    modelRelianceMarkers: uniqueLower(MODEL_RELIANCE_PATTERNS.flatMap((re) => [...answerText.matchAll(re)].map((m) => m[0]))),
  };
}
