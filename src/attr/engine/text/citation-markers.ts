/**
 * Inline citation markers in answer text: `[1]`, `[1, 2]`, `[1-3]`,
 * `[Source: 2]`, `[S1]`, `[C2]`. Each marker is parsed into the source or
 * claim labels it refers to. Bracketed four-digit years (`[2021]`) are not
 * citations and are skipped, as are brackets that hold anything else
 * (`[note]`) and the text part of Markdown links (`[text](url)`).
 */
import { foldDigits } from './normalize.ts';

export interface CitationMarker {
  /** The marker exactly as written, e.g. `[Source: 2]`. */
  text: string;
  start: number;
  end: number;
  /** Labels referred to (`S2`, `C1`); empty when a range could not be expanded. */
  labels: string[];
  /** False when a part of the marker could not be expanded (inverted or huge range). */
  expandable: boolean;
}

const MARKER = /\[(?:\s*(?:sources?|src|ref)\s*:?\s*)?([^[\]\n]{1,60})\](?!\()/gi;
const MAX_RANGE = 50;

function isYear(part: string): boolean {
  return /^\d{4}$/.test(part);
}

/** Parses the inside of a bracket; undefined when it is not a citation. */
function parseInner(rawInner: string): { labels: string[]; expandable: boolean; allYears: boolean } | undefined {
  // Digits of any script count ("[٩]" is marker 9): the answer is NFKC already, this folds the rest.
  const inner = foldDigits(rawInner);
  const parts = inner.split(/[,;]/).map((p) => p.trim());
  if (parts.some((p) => p === '')) return undefined;
  const labels: string[] = [];
  let expandable = true;
  let years = 0;
  for (const part of parts) {
    if (isYear(part)) {
      years++;
      continue;
    }
    let m: RegExpMatchArray | null;
    if ((m = part.match(/^([SC]?)(\d{1,3})$/i))) {
      labels.push(`${(m[1] || 'S').toUpperCase()}${Number(m[2])}`);
    } else if ((m = part.match(/^([SC]?)(\d{1,3})\s*[-–]\s*([SC]?)(\d{1,3})$/i))) {
      const kind = (m[1] || m[3] || 'S').toUpperCase();
      if (m[1] && m[3] && m[1].toUpperCase() !== m[3].toUpperCase()) return undefined;
      const from = Number(m[2]);
      const to = Number(m[4]);
      if (to < from || to - from >= MAX_RANGE) {
        expandable = false;
        continue;
      }
      for (let n = from; n <= to; n++) labels.push(`${kind}${n}`);
    } else {
      return undefined;
    }
  }
  return { labels, expandable, allYears: years === parts.length };
}

/** Every citation marker in `text`, in order. */
export function findCitationMarkers(text: string): CitationMarker[] {
  const out: CitationMarker[] = [];
  if (!text.includes('[')) return out; // every marker starts with one: skip the regex on plain text
  for (const m of text.matchAll(MARKER)) {
    const parsed = parseInner(m[1]!);
    if (!parsed || parsed.allYears) continue;
    out.push({ text: m[0], start: m.index, end: m.index + m[0].length, labels: parsed.labels, expandable: parsed.expandable });
  }
  return out;
}

/** True when a citation marker starts exactly at `index` (used by the segmenter). */
export function citationMarkerAt(text: string, index: number): CitationMarker | undefined {
  const re = new RegExp(MARKER.source, 'iy');
  re.lastIndex = index;
  const m = re.exec(text);
  if (!m) return undefined;
  const parsed = parseInner(m[1]!);
  if (!parsed) return undefined;
  return { text: m[0], start: index, end: index + m[0].length, labels: parsed.labels, expandable: parsed.expandable };
}

/** Answer text with citation markers removed (for retrieval, not for hashing). */
export function stripCitationMarkers(text: string): string {
  let out = '';
  let last = 0;
  for (const m of findCitationMarkers(text)) {
    out += text.slice(last, m.start);
    last = m.end;
  }
  return out + text.slice(last);
}

/** Bracketed four-digit years (`[2021]`): not citations, and not claim content either. */
const BRACKETED_YEAR = /\[\s*\p{Nd}{4}(?:\s*[,;]\s*\p{Nd}{4})*\s*\]/gu;

/** Text without citation markers and bracketed years: what a claim actually asserts. */
export function stripCitationNoise(text: string): string {
  if (!text.includes('[')) return text; // markers and bracketed years all start with one
  return stripCitationMarkers(text).replace(BRACKETED_YEAR, ' ');
}
