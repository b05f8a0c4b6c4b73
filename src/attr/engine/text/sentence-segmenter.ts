/**
 * Sentence segmentation for claim units and evidence spans.
 *
 * `Intl.Segmenter` splits after every "Dr." and "Jan.", so boundaries are
 * found by hand: a `.`, `!` or `?` (plus closing quotes or brackets) followed
 * by white space ends a sentence unless the word before it is a known
 * abbreviation, an initial ("J."), or the next word starts in lower case
 * (after `!`, `?` and `…` too: "the "Kerrang!" release" is one sentence).
 * Decimals ("3.5") and URLs never contain white space after the dot, so they
 * are never split. A citation marker right after the end ("... 100 °C. [1]")
 * stays with the sentence it cites. Line breaks always end a unit, and list
 * bullets / numbers at the start of a line are not part of the unit.
 */
import { ALWAYS_CONTINUING, AMBIGUOUS, CONTINUING_BEFORE_DIGIT } from './abbreviations.ts';
import { citationMarkerAt } from './citation-markers.ts';

export interface TextSegment {
  text: string;
  /** Offset of the first character in the input. */
  start: number;
  /** Offset just past the last character. */
  end: number;
}

const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '»']);
const LIST_PREFIX = /^(?:[-*•+]\s+|\d{1,3}[.)]\s+|#{1,6}\s+|>\s+)/;

/** Splits `text` into sentences with offsets into `text`. */
export function segmentSentences(text: string): TextSegment[] {
  const out: TextSegment[] = [];
  let lineStart = 0;
  while (lineStart <= text.length) {
    let lineEnd = text.indexOf('\n', lineStart);
    if (lineEnd === -1) lineEnd = text.length;
    let start = lineStart;
    const prefix = text.slice(lineStart, lineEnd).match(/^\s*/)![0].length;
    start += prefix;
    const bullet = text.slice(start, lineEnd).match(LIST_PREFIX);
    if (bullet) start += bullet[0].length;
    segmentLine(text, start, lineEnd, out);
    lineStart = lineEnd + 1;
  }
  return out;
}

function pushTrimmed(text: string, start: number, end: number, out: TextSegment[]): void {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  if (end <= start) return;
  const piece = text.slice(start, end);
  if (!/[\p{L}\p{N}]/u.test(piece)) return;
  out.push({ text: piece, start, end });
}

function segmentLine(text: string, from: number, to: number, out: TextSegment[]): void {
  let sentenceStart = from;
  let i = from;
  while (i < to) {
    const ch = text[i]!;
    if (ch === '.' || ch === '!' || ch === '?' || ch === '…') {
      let end = i + 1;
      while (end < to && (text[end] === '.' || text[end] === '!' || text[end] === '?')) end++;
      while (end < to && CLOSERS.has(text[end]!)) end++;
      if (end >= to) break;
      if (!/\s/.test(text[end]!)) {
        i = end;
        continue;
      }
      if (ch === '.' && end === i + 1 && !endsSentenceAfterPeriod(text, sentenceStart, i, end, to)) {
        i = end;
        continue;
      }
      // "… for the "Kerrang!" release …", "Who's Buying?" album": a title's own mark, the sentence goes on in lower case.
      if (ch !== '.' && nextIsLowerCase(text, end, to)) {
        i = end;
        continue;
      }
      // Keep citation markers that follow the terminal punctuation with this sentence.
      let cut = end;
      let probe = end;
      for (;;) {
        while (probe < to && (text[probe] === ' ' || text[probe] === '\t')) probe++;
        const marker = probe < to ? citationMarkerAt(text, probe) : undefined;
        if (!marker || marker.end > to) break;
        cut = marker.end;
        probe = marker.end;
      }
      pushTrimmed(text, sentenceStart, cut, out);
      sentenceStart = cut;
      i = cut;
      continue;
    }
    i++;
  }
  pushTrimmed(text, sentenceStart, to, out);
}

/** The first non-space character from `after` is a lower-case letter. */
function nextIsLowerCase(text: string, after: number, to: number): boolean {
  let next = after;
  while (next < to && /\s/.test(text[next]!)) next++;
  return /\p{Ll}/u.test(text[next] ?? '');
}

/** Characters within which a double-quoted title must close for an initialism in it not to end a sentence. */
const QUOTE_REACH = 60;

/** The rest of a quoted title after an initialism: capitalised words and their small joining words ("Club", "News & World Report"). */
const TITLE_TAIL = /^\s*(?:(?:\p{Lu}[\p{L}\p{N}'’-]*|&|of|and|the|for|in|on|at)\s*)+[,;:]?$/u;

/**
 * The period at `dot` stands inside a double-quoted stretch that opened in
 * this sentence and closes within QUOTE_REACH characters, and what stands
 * between it and the close is the rest of a title (TITLE_TAIL): an
 * initialism in a title ("The A.V. Club", "U.S. News & World Report"), not
 * the end of the sentence. A quoted sentence that goes on after the
 * initialism ("… the U.S. It was …") still ends there.
 */
function insideShortQuote(text: string, sentenceStart: number, dot: number, to: number): boolean {
  const before = text.slice(sentenceStart, dot);
  const straight = (before.match(/"/g) ?? []).length % 2 === 1;
  const curly = before.lastIndexOf('“') > before.lastIndexOf('”');
  if (!straight && !curly) return false;
  const rest = text.slice(dot + 1, Math.min(to, dot + 1 + QUOTE_REACH));
  const close = rest.search(curly ? /”/ : /"/);
  return close >= 0 && TITLE_TAIL.test(rest.slice(0, close));
}

/** Decides whether the period at `dot` (followed by white space at `after`) ends a sentence. */
function endsSentenceAfterPeriod(text: string, sentenceStart: number, dot: number, after: number, to: number): boolean {
  let wordStart = dot;
  while (wordStart > sentenceStart && !/[\s([{"'“‘]/.test(text[wordStart - 1]!)) wordStart--;
  const word = text.slice(wordStart, dot).toLowerCase();
  let next = after;
  while (next < to && /\s/.test(text[next]!)) next++;
  const nextChar = text[next] ?? '';
  const nextIsLower = /\p{Ll}/u.test(nextChar);
  const nextIsDigit = /\d/.test(nextChar);
  if (word === '') return true;
  if (ALWAYS_CONTINUING.has(word)) return false;
  if (CONTINUING_BEFORE_DIGIT.has(word)) return !nextIsDigit && !nextIsLower;
  if (/^\p{L}$/u.test(word)) return false; // an initial: "J. R. R. Tolkien"
  if (AMBIGUOUS.has(word) || /^(\p{L}\.)+\p{L}$/u.test(word)) return !nextIsLower && !nextIsDigit && !insideShortQuote(text, sentenceStart, dot, to);
  return !nextIsLower;
}
