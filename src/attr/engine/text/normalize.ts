/**
 * Unicode normal form of answer text, applied before any rule reads it
 * (issue 18 item 4). Invisible format characters are removed first: bidi
 * embeddings, overrides and isolates can reorder what a reader sees
 * (U+202E turns "[1] gold" into something else on screen), and zero-width
 * characters split words and markers invisibly ("ho\u200Bney", "[\u200B9]").
 * Then NFKC folds compatibility forms (full-width "［１］", ligatures "ﬁ",
 * circled and super/subscript digits) into the characters every rule
 * matches. Digits of other scripts ("٩", "९") are decimal digits that NFKC
 * keeps; `foldDigits` maps them to ASCII where a rule needs a value
 * (citation markers, numbers).
 *
 * The engine attributes and displays the normalised answer, so nothing
 * invisible reaches `display.rendered_text`; the display rules refuse an
 * answer text that is not already in this form (a forged response).
 */

/**
 * Bidi controls (LRM, RLM, ALM, LRE…RLO, PDF, LRI…PDI), zero-width space,
 * non-joiner, joiner, word joiner, invisible operators, BOM, Mongolian vowel
 * separator and soft hyphen.
 */
export const INVISIBLE_CONTROLS = /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/g;
const HAS_INVISIBLE = new RegExp(INVISIBLE_CONTROLS.source);
const NON_ASCII = /[^\x00-\x7F]/;

/** Answer text with invisible controls removed, then NFKC. ASCII text is returned as is (already normal). */
export function normalizeAnswerText(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.replace(INVISIBLE_CONTROLS, '').normalize('NFKC');
}

/** True when `text` is already in the form `normalizeAnswerText` produces. */
export function isNormalizedAnswerText(text: string): boolean {
  if (!NON_ASCII.test(text)) return true;
  return !HAS_INVISIBLE.test(text) && text === text.normalize('NFKC');
}

const NON_ASCII_DIGIT = /(?![0-9])\p{Nd}/gu;

/**
 * Decimal digits of any script as ASCII ("[٩]" → "[9]"). Every Unicode
 * decimal digit block is ten consecutive code points starting at zero, so
 * the value is the distance from the block's zero.
 */
export function foldDigits(text: string): string {
  if (!NON_ASCII.test(text)) return text;
  return text.replace(NON_ASCII_DIGIT, (d) => {
    const cp = d.codePointAt(0)!;
    let first = cp;
    while (first > 0 && cp - first < 60 && IS_DIGIT.test(String.fromCodePoint(first - 1))) first--;
    // Digit blocks are runs of ten from zero (some runs hold several blocks back to back).
    return String((cp - first) % 10);
  });
}

const IS_DIGIT = /^\p{Nd}$/u;
