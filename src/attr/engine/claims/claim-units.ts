/**
 * Claim units: the sentences of an answer, each with its offsets and a hash
 * of its exact text. The engine and both verifiers derive claim units with
 * this one function, which is what makes rule 9 (claim units must match the
 * footer claim rows exactly) checkable. Sentences that only point at a
 * source (`reference-sentence.ts`) are not claim units.
 */
import { textHash } from '../../footer/footer-hashes.ts';
import { isReferenceSentence } from './reference-sentence.ts';
import { segmentSentences } from '../text/sentence-segmenter.ts';

export interface ClaimUnit {
  text: string;
  start: number;
  end: number;
  hash: string;
}

export function claimUnits(answerText: string): ClaimUnit[] {
  // Reference sentences ("See [the bee study](uri).") assert nothing: they are not claim units.
  return segmentSentences(answerText)
    .filter((s) => !isReferenceSentence(s.text))
    .map((s) => ({ ...s, hash: textHash(s.text) }));
}

/** Claim text shown in the footer: whole up to 280 characters, else cut with an ellipsis. */
export function claimPreview(text: string): string {
  return text.length <= 280 ? text : `${text.slice(0, 279)}…`;
}
