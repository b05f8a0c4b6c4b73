/**
 * Tokens for retrieval and support scoring: NFKC-normalised, lower-cased
 * words and numbers (digits of any script folded to ASCII, thousands
 * separators removed, decimals kept whole, number words "two"…"ninety" as
 * digits), stop words dropped, and words reduced to their Porter stem
 * (the `stemmer` package: "forages"/"foraging"/"foraged" → "forag",
 * "relational"/"relate" → "relat"). Claims and corpus chunks go through
 * this one function, which is what matters.
 */
import { stemmer } from 'stemmer';
import { foldDigits } from './normalize.ts';

/** Words too common to carry evidence; never tokens. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being but by did do does for from had has have he her his how i if in into is it its ' +
    'me my of on or our she so than that the their them then there these they this those to too us was we were what ' +
    'when where which while who whom why with you your also about can could may might must shall should will would ' +
    'very just such each other some any all both only own same over under again further once here out up ' +
    'down off above below between through during before after am let one per via him hers itself themselves himself herself'
  ).split(' '),
);

/** Number words as the digits they stand for ("five years" meets "5 years"). "one" is a stop word (too often a pronoun). */
export const NUMBER_WORDS: ReadonlyMap<string, string> = new Map(
  'two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'
    .split(' ')
    .map((w, i) => [w, String(i + 2)] as [string, string])
    .concat('thirty forty fifty sixty seventy eighty ninety'.split(' ').map((w, i) => [w, String((i + 3) * 10)] as [string, string])),
);

/**
 * Ordinal words as the figure they write ("the fifteenth century" meets "the
 * 15th century", "sixth" meets "6th"). They are matched as that figure but
 * stay words otherwise (not `number`: no figure check or quantity is read
 * from them). "first" and "second" stay words ("at first", "a second").
 */
export const ORDINAL_WORDS: ReadonlyMap<string, string> = new Map(
  'third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth'
    .split(' ')
    .map((w, i) => [w, String(i + 3)] as [string, string])
    .concat('thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth'.split(' ').map((w, i) => [w, String((i + 3) * 10)] as [string, string])),
);

/** Abbreviated months, as the stem of the full name. */
const MONTH_ABBREVIATIONS: ReadonlyMap<string, string> = new Map(
  'jan:january feb:february mar:march apr:april jun:june jul:july aug:august sep:september sept:september oct:october nov:november dec:december'
    .split(' ')
    .map((p) => p.split(':') as [string, string])
    .map(([a, full]) => [a, stemmer(full)] as [string, string]),
);
/** Month names by number, as their stems ("2016-08-25" → "august"). */
const MONTHS_BY_NUMBER: readonly string[] = 'january february march april may june july august september october november december'.split(' ').map((m) => stemmer(m));
/** The "-MM-DD" after a four-digit year of an ISO date (not followed by another digit). */
const ISO_DATE_REST = /^-(\d\d)-(\d\d)(?!\d)/;
/** The hour of an ISO timestamp right after its date ("T07:" of "2018-06-30T07:00:00Z"). */
const ISO_TIME_HOUR = /^T(\d\d):/;
/** The UTC designator after a clock part ("00Z"). */
const ZULU = /(?<=^\d\d)z$/;
const DIGIT_AFTER = /^\.?\s\d/;
const DIGIT_BEFORE = /\d\s$/;

const TENS: ReadonlySet<string> = new Set('twenty thirty forty fifty sixty seventy eighty ninety'.split(' '));
const UNITS = 'one two three four five six seven eight nine'.split(' ');
/** A hyphenated unit after a tens word: "-six" of "sixty-six". */
const UNIT_AFTER_TENS = new RegExp(`^[-‐‑–](${UNITS.join('|')})\\b`, 'i');

const TOKEN = /[\p{L}\p{N}]+(?:[.,'’][\p{L}\p{N}]+)*/gu;

const isAsciiDigit = (code: number): boolean => code >= 48 && code <= 57;
const APOSTROPHE = 0x27;
const COLON = 0x3a;
const RIGHT_QUOTE = 0x2019;
/** Characters joining the parts of a token ("3.5", "1,000", "don't"), dropped from word tokens. */
const JOINERS = /['’.,]/g;
const HAS_JOINER = /['’.,]/;
const NON_ASCII = /[^\x00-\x7F]/;
const COMBINING_MARKS = /\p{M}/gu;
const LATIN_WITH_MARKS = /^[\p{Script=Latin}\p{M}\p{N}]+$/u;

const stems = new Map<string, string>();
const STEM_CACHE_LIMIT = 200_000;

/** Porter stem of a lower-case word (memoised: the corpus repeats words a lot); numbers are left alone. */
export function stem(word: string): string {
  if (isAsciiDigit(word.charCodeAt(0))) return word;
  let s = stems.get(word);
  if (s === undefined) {
    s = stemmer(word);
    if (stems.size >= STEM_CACHE_LIMIT) stems.clear();
    stems.set(word, s);
  }
  return s;
}

const ORDINAL = /^(\d+)(?:st|nd|rd|th)$/;
/** Zeros before a whole number's first significant digit ("05" → "5", "007" → "7"; "0" and "0.5" stay). */
const LEADING_ZEROS = /^0+(?=\d)/;

/**
 * Normalises a numeric token: "1,000" → "1000", "3.50" stays "3.50", "05" →
 * "5" (a day or month written with a zero), and an ordinal is its number ("9th" → "9": "April 9th" is "April 9", "the 400th
 * anniversary" counts 400).
 */
function normaliseNumber(token: string): string {
  const ordinal = ORDINAL.exec(token);
  if (ordinal) return ordinal[1]!.replace(LEADING_ZEROS, '');
  // "05 August 2019" is August 5: a whole number's leading zeros write nothing.
  if (LEADING_ZEROS.test(token) && /^\d+$/.test(token)) return token.replace(LEADING_ZEROS, '');
  return /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(token) ? token.replace(/,/g, '') : token;
}

/** One content token with where it stands in the text and whether it was written with a capital. */
export interface TokenSpan {
  term: string;
  start: number;
  end: number;
  capitalized: boolean;
  number: boolean;
}

/**
 * Visits the content tokens of `text` in order. Offsets refer to the text
 * after NFKC and digit folding (the same as the input for ASCII text).
 */
function eachToken(raw: string, visit: (term: string, start: number, end: number, original: string, number: boolean) => void, compounds = false): void {
  const text = NON_ASCII.test(raw) ? foldDigits(raw.normalize('NFKC')) : raw;
  let skipUntil = -1;
  for (const m of text.matchAll(TOKEN)) {
    if (m.index < skipUntil) continue;
    const original = m[0];
    let t = original.toLowerCase();
    // A possessive "'s" / "’s" is not part of the word.
    const n = t.length;
    if (n >= 2 && t.charCodeAt(n - 1) === 0x73 && (t.charCodeAt(n - 2) === APOSTROPHE || t.charCodeAt(n - 2) === RIGHT_QUOTE)) t = t.slice(0, -2);
    if (isAsciiDigit(t.charCodeAt(0))) {
      // "2016-08-25" is 25 August 2016: the year, the month as its name, the day.
      const iso = t.length === 4 ? ISO_DATE_REST.exec(text.slice(m.index + 4, m.index + 11)) : null;
      if (iso && Number(iso[1]) >= 1 && Number(iso[1]) <= 12 && Number(iso[2]) >= 1 && Number(iso[2]) <= 31) {
        const at = m.index + 4;
        visit(t, m.index, at, original, true);
        visit(MONTHS_BY_NUMBER[Number(iso[1]) - 1]!, at + 1, at + 3, iso[1]!, false);
        visit(String(Number(iso[2])), at + 4, at + 6, iso[2]!, true);
        skipUntil = at + 6;
        // A full timestamp ("2018-06-30T07:00:00Z"): the hour after the "T" is a clock part, as in "07:00".
        const hour = ISO_TIME_HOUR.exec(text.slice(at + 6, at + 10));
        if (hour) {
          visit(hour[1]!, at + 7, at + 9, hour[1]!, true);
          skipUntil = at + 9;
        }
        continue;
      }
      // A clock time ("08:00") is not a count: its parts keep their zeros.
      const clock = text.charCodeAt(m.index - 1) === COLON || text.charCodeAt(m.index + original.length) === COLON;
      const end = m.index + original.length;
      // A figure with its unit or magnitude written on ("5km", "€1.5m", "$2bn", "180K") is the figure and that word.
      const suffix = clock || !isLowerAsciiLetter(t.charCodeAt(t.length - 1)) ? null : UNIT_SUFFIX.exec(t);
      if (suffix) {
        const at = m.index + suffix[1]!.length;
        const unit = suffix[2]!;
        const magnitude = MAGNITUDE_SUFFIX.get(unit) ?? (unit === 'm' && CURRENCY_BEFORE.test(text.slice(Math.max(0, m.index - 2), m.index)) ? 'million' : undefined);
        visit(normaliseNumber(suffix[1]!), m.index, at, original.slice(0, suffix[1]!.length), true);
        if (magnitude !== undefined) visit(magnitude, at, end, original.slice(suffix[1]!.length), false);
        // A unit word as if written apart ("5km" = "5 km"; a one-letter one is dropped, as "100 m" drops it).
        else if (unit.length >= 2 && !STOP_WORDS.has(unit)) visit(stem(unit), at, end, original.slice(suffix[1]!.length), false);
        visitPercent(text, end, visit);
        continue;
      }
      // A clock part's "Z" (UTC, "07:00:00Z") is a time zone, not part of the figure.
      visit(clock ? t.replace(ZULU, '') : normaliseNumber(t), m.index, end, original, true);
      if (!clock) visitPercent(text, end, visit);
      continue;
    }
    // "U.S." and "US" name the country, as "USA" does; only the pronoun "us" is a stop word.
    if (t.length <= 3 && (original === 'U.S' || (original === 'US' && !allCapsNeighbour(text, m.index, m.index + 2)))) {
      visit('usa', m.index, m.index + original.length, original, false);
      continue;
    }
    if (HAS_JOINER.test(t)) t = t.replace(JOINERS, '');
    // Accents do not make another Latin-script word: "Québec" is "Quebec", "Étaples" is "Etaples".
    // (Other scripts keep their marks: a Devanagari vowel sign is part of the word.)
    if (NON_ASCII.test(t)) {
      const parts = t.normalize('NFD');
      if (LATIN_WITH_MARKS.test(parts)) t = parts.replace(COMBINING_MARKS, '');
    }
    const digits = NUMBER_WORDS.get(t);
    if (digits !== undefined) {
      // "sixty-six" is 66, not 60 and 6.
      const end = m.index + original.length;
      const unit = TENS.has(t) ? UNIT_AFTER_TENS.exec(text.slice(end, end + 8)) : null;
      if (unit) {
        skipUntil = end + unit[0].length;
        visit(String(Number(digits) + UNITS.indexOf(unit[1]!.toLowerCase()) + 1), m.index, skipUntil, text.slice(m.index, skipUntil), true);
        continue;
      }
      visit(digits, m.index, end, original, true);
      continue;
    }
    const ordinal = ORDINAL_WORDS.get(t);
    if (ordinal !== undefined) {
      visit(ordinal, m.index, m.index + original.length, original, false);
      continue;
    }
    // "Nov 10" is "November 10": an abbreviated month next to a figure is the month.
    const month = MONTH_ABBREVIATIONS.get(t);
    if (month !== undefined && (DIGIT_AFTER.test(text.slice(m.index + original.length, m.index + original.length + 3)) || DIGIT_BEFORE.test(text.slice(Math.max(0, m.index - 3), m.index)))) {
      visit(month, m.index, m.index + original.length, original, false);
      continue;
    }
    const end = m.index + original.length;
    if (compounds) {
      // "Ibero-American" is also "Iberoamerican", "co-star" also "costar": the compound written as one word.
      const joined = HYPHENATED_NEXT.exec(text.slice(end, end + 40));
      if (joined && /^\p{L}+$/u.test(t) && !/[-‐]/.test(text[m.index - 1] ?? '')) {
        const whole = t + joined[1]!.toLowerCase();
        if (!STOP_WORDS.has(whole)) visit(stem(whole), m.index, end + joined[0].length, text.slice(m.index, end + joined[0].length), false);
      }
    }
    // "per cent" is "percent" (and "%", see visitPercent).
    const perCent = t === 'per' ? PER_CENT.exec(text.slice(end, end + 8)) : null;
    if (perCent) {
      const to = end + perCent[0].length;
      visit('percent', m.index, to, text.slice(m.index, to), false);
      skipUntil = to;
      continue;
    }
    if (t.length < 2 || STOP_WORDS.has(t)) continue;
    // "£3.2 bn" is "£3.2 billion", as "£3.2bn" is.
    const magnitude = t.length === 2 && t.charCodeAt(1) === 0x6e ? MAGNITUDE_SUFFIX.get(t) : undefined;
    if (magnitude !== undefined && DIGIT_BEFORE.test(text.slice(Math.max(0, m.index - 2), m.index))) {
      visit(magnitude, m.index, end, original, false);
      continue;
    }
    visit(stem(t), m.index, end, original, false);
    // "music.avclub.com": a host name is also read as its words ("avclub" is "A.V. Club" written as one word).
    if (compounds && original.includes('.') && DOTTED_NAME.test(original)) {
      let at = m.index;
      for (const part of original.split('.')) {
        const word = part.toLowerCase();
        if (word.length >= 2 && !STOP_WORDS.has(word) && /^\p{L}+$/u.test(word)) visit(stem(word), at, at + part.length, part, false);
        at += part.length + 1;
      }
    }
    // "NewsOPINIONApril", "MemorialPembroke": words a scraped page glued together are also read apart.
    if (compounds && GLUED.test(original)) {
      for (const part of gluedParts(original)) {
        const word = part.text.toLowerCase();
        if (word.length >= 2 && !STOP_WORDS.has(word)) visit(stem(word), m.index + part.at, m.index + part.at + part.text.length, part.text, false);
      }
    }
  }
}

/**
 * A figure with a unit or magnitude written on: "5km", "3.5mm", "€1.5m",
 * "$2bn", "180K", "7pm". Other letters keep the token whole: "3b" is not
 * "3a", "3D", "1990s"; an ordinal ("9th") is read before.
 */
const UNIT_SUFFIX = /^(\d+(?:[.,]\d+)*)(km|cm|mm|m|kg|mg|g|lbs?|oz|ft|in|mi|mph|kph|kmh|ml|l|gb|mb|tb|kb|hz|khz|mhz|ghz|kw|mw|gw|kwh|am|pm|bn|mn|k)$/;
/** Written-on magnitudes ("$2bn" is two billion); "m" is a million only after a currency sign ("€1.5m", not "100m"). */
const MAGNITUDE_SUFFIX: ReadonlyMap<string, string> = new Map([['bn', 'billion'], ['mn', 'million'], ['k', 'thousand']]);
const CURRENCY_BEFORE = /[$€£¥]\s?$/;
const PER_CENT = /^\s+cent(?![\p{L}\p{N}])/iu;

/** "88%" and "88 %" are "88 percent": the sign after a figure is the word. */
function visitPercent(text: string, end: number, visit: (term: string, start: number, end: number, original: string, number: boolean) => void): void {
  const next = text.charCodeAt(end);
  if (next !== PERCENT && !(next === SPACE && text.charCodeAt(end + 1) === PERCENT)) return;
  const at = next === PERCENT ? end : end + 1;
  visit('percent', at, at + 1, '%', false);
}
const PERCENT = 0x25;
const SPACE = 0x20;
const isLowerAsciiLetter = (code: number): boolean => code >= 97 && code <= 122;

/** A word of two or more capitals ("CONTACT", "HELP") right before or after `start..end`: an all-caps run, where "US" is the pronoun. */
function allCapsNeighbour(text: string, start: number, end: number): boolean {
  return /(?:^|[^\p{L}])\p{Lu}{2,}[^\p{L}\p{N}]+$/u.test(text.slice(Math.max(0, start - 24), start)) || /^[^\p{L}\p{N}]+\p{Lu}{2,}(?:[^\p{L}]|$)/u.test(text.slice(end, end + 24));
}

/**
 * A word of ASCII letters only, with a lower-case letter right before a
 * capital at least three letters in: two or more words written without a
 * space ("CreditAaron", "NewsOPINIONApril"), not a name with an inner
 * capital ("McDonald", "DiCaprio", "iPhone").
 */
const GLUED = /^(?=[A-Za-z]+$)[A-Za-z]{3,}(?<=[a-z])[A-Z]/;
/** Where glued words part: a lower-case letter before a capital, or a capital run before a capital and a lower-case letter. */
const GLUE_POINT = /(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])/;

/** The words of a glued token with their offsets in it ("NewsOPINIONApril" → News, OPINION, April). */
function gluedParts(original: string): Array<{ text: string; at: number }> {
  const out: Array<{ text: string; at: number }> = [];
  let at = 0;
  for (const text of original.split(GLUE_POINT)) {
    out.push({ text, at });
    at += text.length;
  }
  return out;
}

/**
 * Words joined by dots, one of them of three letters or more ("music.avclub.com",
 * "nytimes.com"); not initials and abbreviations ("U.S", "Ph.D", "e.g").
 */
const DOTTED_NAME = /^(?=.*(?:^|\.)\p{L}{3,}(?:\.|$))[\p{L}\p{N}]+(?:\.[\p{L}\p{N}]+)+$/u;

/** A hyphen and the next word right after a word ("-American" in "Ibero-American"). */
const HYPHENATED_NEXT = /^[-‐]([\p{L}]+)(?![\p{L}\p{N}]*[-‐][\p{L}\p{N}])/u;

/** Content tokens of `text`, in order (duplicates kept). */
export function contentTokens(text: string): string[] {
  const out: string[] = [];
  eachToken(text, (term) => out.push(term));
  return out;
}

function isCapitalized(original: string): boolean {
  const first = original.charCodeAt(0);
  if (first < 0x80) return first >= 65 && first <= 90;
  return /\p{Lu}/u.test(String.fromCodePoint(original.codePointAt(0)!));
}

/**
 * Content tokens with offsets, capitalisation and number flag (for claim
 * analysis). `compounds`: a hyphenated pair of words also yields the pair
 * written as one word, before its parts (evidence side only, so that a claim
 * writing "Iberoamerican" finds "Ibero-American"; a claim's own hyphenated
 * words stay two terms, which evidence writing them apart still matches).
 */
export function tokenSpans(text: string, compounds = false): TokenSpan[] {
  const out: TokenSpan[] = [];
  eachToken(text, (term, start, end, original, number) => {
    out.push({ term, start, end, capitalized: !number && isCapitalized(original), number });
  }, compounds);
  return out;
}

/**
 * Visits the content tokens of `text` in order with whether each was written
 * with a capital (numbers never are) and whether it is the text's first token.
 */
export function eachContentToken(text: string, visit: (term: string, capitalized: boolean, first: boolean) => void, compounds = false): void {
  let first = true;
  eachToken(text, (term, start, _end, original, number) => {
    // A token is the sentence's first when only punctuation or quotes stand before it.
    visit(term, !number && isCapitalized(original), first && !/[\p{L}\p{N}]/u.test(text.slice(0, start)));
    first = false;
  }, compounds);
}
