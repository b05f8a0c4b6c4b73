/**
 * Dates a text gives relative to its own dateline: "Wednesday evening" on
 * a page dated "March 2, 2017" is March 1, 2017; "last year" on a page of
 * May 26, 2019 is 2018; "with the first planned for June" under a
 * dateline of December 20, 2018 is June 2019. News pages write the day of
 * an event this way, and the claim about it writes the date in full.
 *
 * Read only from the text itself, never from anything it does not show:
 * the anchor is the one full date the text writes ("March 2, 2017", "2 March
 * 2017", "2017-03-02"). A text with no full date, or with two different
 * ones, resolves nothing (which of them a "Wednesday" counts from is a
 * guess). Weekdays and a month without a year resolve only when their
 * sentence says which way they point: a future word ("will", "planned",
 * "scheduled", "set to", "next" …) points after the anchor, a past-tense
 * verb ("narrowed", "was", "began") before it; a sentence with neither
 * (present tense: "opens in August") resolves nothing. "yesterday",
 * "today", "tomorrow" and "last / this / next year" or "month" need no
 * tense.
 *
 * The resolved dates are read as the text's own figures by the support
 * checks (recall and `number_missing`, support-judge.ts) and by rule 4's
 * year and figure comparison (warrant-profile.ts), which the engine and the
 * verifiers compute from the displayed evidence text through this one
 * function (decision 205).
 */

export interface ResolvedDate {
  year: number;
  /** 1–12, or undefined when only the year is resolved ("last year"). */
  month?: number;
  /** 1–31, or undefined when only the month is resolved ("planned for June"). */
  day?: number;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH_NAME = String.raw`(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?`;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/** A full date: "March 2, 2017", "2 March 2017", "Mar. 2nd, 2017", "2017-03-02" (day, month and year). */
const FULL_DATE = new RegExp(
  String.raw`\b(?:(${MONTH_NAME})\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+((?:1[5-9]|20)\d\d)|(\d{1,2})(?:st|nd|rd|th)?\s+(${MONTH_NAME}),?\s+((?:1[5-9]|20)\d\d)|((?:1[5-9]|20)\d\d)-(\d\d)-(\d\d))(?![\d])`,
  'giu',
);
const HAS_FULL_DATE = new RegExp(FULL_DATE.source, 'iu');
const WEEKDAY = new RegExp(String.raw`\b(${WEEKDAYS.join('|')})\b`, 'g');
/**
 * A month after a preposition or "early / mid / late", to be read without
 * a year when no figure follows ("planned for June", "in March,"). "May" is
 * left out: the modal is written the same way in lower case.
 */
const YEARLESS_MONTH = new RegExp(String.raw`\b(?:in|for|since|until|by|from|early|late|mid|next|last)[-\s]+(${MONTHS.filter((m) => m !== 'may').join('|')})\b`, 'g');
/** The words that make a text worth reading for relative dates at all (a quick test before the sentence work). */
const RELATIVE_CUE = new RegExp(String.raw`\b(?:yesterday|today|tomorrow|(?:last|this|next) (?:year|month)|${WEEKDAYS.join('|')})\b|${YEARLESS_MONTH.source}`, 'i');
/** A word that points after the anchor. */
const FUTURE = /\b(?:will|shall|plans?|planned|planning|schedul(?:ed|es)|slated|set to|expected to|expects to|upcoming|next|to be held|is to|are to|due to (?:begin|start|open|be))\b/i;
/** A past-tense verb (regular, or one of the common irregular ones), or a perfect. */
const PAST = /\b(?:was|were|had|did|has been|have been|said|told|began|became|came|went|won|lost|took|gave|made|met|held|left|saw|got|ran|wrote|\p{L}{2,}ed)\b/iu;

/** The sentences of a text, roughly: the relative words are read per sentence for their tense. */
const SENTENCE = /[^.!?\n]+(?:[.!?]+|\n|$)/g;

const DAY_MS = 86_400_000;

function monthOf(name: string): number {
  const key = name.toLowerCase().replace(/\.$/, '').slice(0, 3);
  return MONTHS.findIndex((m) => m.startsWith(key)) + 1;
}

/** The text's one full date, or undefined when it writes none or several different ones. */
export function dateline(text: string): Date | undefined {
  let found: Date | undefined;
  for (const m of text.matchAll(FULL_DATE)) {
    const [year, month, day] = m[1] !== undefined
      ? [Number(m[3]), monthOf(m[1]), Number(m[2])]
      : m[5] !== undefined
        ? [Number(m[6]), monthOf(m[5]), Number(m[4])]
        : [Number(m[7]), Number(m[8]), Number(m[9])];
    if (month < 1 || month > 12 || day < 1 || day > 31) continue;
    const date = new Date(Date.UTC(year, month - 1, day));
    if (date.getUTCDate() !== day) continue;
    if (found !== undefined && found.getTime() !== date.getTime()) return undefined;
    found = date;
  }
  return found;
}

const asResolved = (d: Date): ResolvedDate => ({ year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() });

/** A weekday or month name at `index` that is part of a full date ("Wednesday, March 1, 2017", "June 16, 2017", "16 June 2017") resolves nothing. */
function writtenInFull(sentence: string, index: number, length: number): boolean {
  const after = sentence.slice(index + length, index + length + 24);
  const before = sentence.slice(Math.max(0, index - 4), index);
  return /^\.?,?\s*(?:\d|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec))/i.test(after) || /\d(?:st|nd|rd|th)?\s+$/i.test(before);
}

/**
 * The dates `text` gives relative to its dateline (see the module comment);
 * empty when it has no single dateline or no relative date.
 */
export function relativeDates(text: string): ResolvedDate[] {
  if (!RELATIVE_CUE.test(text)) return [];
  const anchor = dateline(text);
  if (anchor === undefined) return [];
  const year = anchor.getUTCFullYear();
  const month = anchor.getUTCMonth() + 1;
  const out: ResolvedDate[] = [];
  const shifted = (days: number) => asResolved(new Date(anchor.getTime() + days * DAY_MS));
  for (const [sentence] of text.matchAll(SENTENCE)) {
    const lower = sentence.toLowerCase();
    // The sentence that writes the dateline itself ("By … on March 2, 2017") dates nothing else.
    if (HAS_FULL_DATE.test(sentence)) continue;
    if (/\byesterday\b/.test(lower)) out.push(shifted(-1));
    if (/\btoday\b/.test(lower)) out.push(shifted(0));
    if (/\btomorrow\b/.test(lower)) out.push(shifted(1));
    if (/\blast year\b/.test(lower)) out.push({ year: year - 1 });
    if (/\bthis year\b/.test(lower)) out.push({ year });
    if (/\bnext year\b/.test(lower)) out.push({ year: year + 1 });
    for (const [cue, step] of [['last', -1], ['this', 0], ['next', 1]] as const) {
      if (!new RegExp(`\\b${cue} month\\b`).test(lower)) continue;
      const at = new Date(Date.UTC(year, month - 1 + step, 1));
      out.push({ year: at.getUTCFullYear(), month: at.getUTCMonth() + 1 });
    }
    const future = FUTURE.test(lower);
    const past = !future && PAST.test(lower);
    if (!future && !past) continue;
    for (const m of lower.matchAll(WEEKDAY)) {
      if (writtenInFull(lower, m.index, m[0].length)) continue;
      const target = WEEKDAYS.indexOf(m[1]!);
      const today = anchor.getUTCDay();
      // Past: the latest such day on or before the dateline; future: the first one after it.
      out.push(past ? shifted(-((today - target + 7) % 7)) : shifted(((target - today + 6) % 7) + 1));
    }
    for (const m of lower.matchAll(YEARLESS_MONTH)) {
      if (writtenInFull(lower, m.index + m[0].length - m[1]!.length, m[1]!.length)) continue;
      const named = MONTHS.indexOf(m[1]!) + 1;
      // The dateline's own month could be either side of it: nothing is resolved.
      if (named === month) continue;
      out.push({ year: future ? (named > month ? year : year + 1) : named < month ? year : year - 1, month: named });
    }
  }
  return out;
}

/**
 * The resolved dates as the figures and words a text would write for them:
 * each year and day as a figure, each month as its name ("2017", "1",
 * "march"). `values`: the days; `years`: the years; `months`: lower-case month names.
 */
export function relativeDateFigures(text: string): { years: string[]; values: string[]; months: string[] } {
  const years: string[] = [];
  const values: string[] = [];
  const months: string[] = [];
  for (const d of relativeDates(text)) {
    years.push(String(d.year));
    if (d.month !== undefined) months.push(MONTHS[d.month - 1]!);
    if (d.day !== undefined) values.push(String(d.day));
  }
  return { years, values, months };
}
