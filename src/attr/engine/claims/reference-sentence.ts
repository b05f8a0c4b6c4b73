/**
 * Reference sentences: "See [the bee study](https://…)." points the reader
 * at a source and asserts nothing, so it is not a claim unit (issue 18
 * item 5). Its links are still answer links, so rule 2 still requires each
 * to be a verified source URI of the footer.
 *
 * A sentence is a reference when, with its links and citation markers
 * removed, only lead-in words remain ("See", "See also", "Read more in",
 * "Source:"), it has at least one link, and every Markdown link's text names
 * a work rather than stating something: at most eight words, no digits, no
 * negation, no verb from the list below, and it ends in a word for a work
 * ("study", "paper", "report", …). "See [honeybees produce gold](…)." is a
 * claim (it ends in "gold"), and so is "See [the study showing bees make
 * gold](…)." (it holds "showing").
 */
import { findCitationMarkers } from '../text/citation-markers.ts';

const MARKDOWN_LINK = /\[([^\]\n]*)\]\(\s*<?[^)\s>]+>?(?:\s+"[^"]*")?\s*\)/g;
const BARE_URI = /\b[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^\s<>"'`)\]]+/g;

const LEAD_IN = new Set(
  ('see also read more details detail further reading source sources reference references cf for in at on here via info information ' +
    'learn find out check visit following the this and or full original background discussed described explained covered ' +
    'overview summary context example examples e.g i.e related compare').split(' '),
);

const WORK_NOUNS = new Set(
  ('study studies paper papers article articles report reports review reviews source sources page pages post posts survey surveys guide guides ' +
    'overview book books chapter chapters dataset datasets data documentation docs entry entries website site sites analysis analyses research ' +
    'summary summaries thread notes faq paper publication publications journal record records page here this link links section sections ' +
    'table figure figures chart appendix dossier brief briefing factsheet fact-sheet sheet explainer handbook manual encyclopedia wiki transcript ' +
    'interview episode video podcast archive archives catalogue catalog index bulletin newsletter release statement preprint thesis report').split(' '),
);

/** Verbs and copulas that turn a link text into a statement. */
const STATEMENT_WORDS = new Set(
  ('is are was were be been being am has have had do does did can could will would shall should may might must ' +
    'shows show showed shown showing proves prove proved proving finds find found finding says say said saying states stated stating ' +
    'claims claim claimed confirms confirmed reveals revealed demonstrates demonstrated suggests suggested concludes concluded ' +
    'produce produces produced make makes made cause causes caused').split(' '),
);
const NEGATION = /\b(?:not|never|no|none|cannot)\b|n['’]t\b/i;

function words(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu)?.map((w) => w.replace(/[.]+$/, '')) ?? [];
}

function namesAWork(linkText: string): boolean {
  const w = words(linkText);
  if (w.length === 0 || w.length > 8) return false;
  if (/\p{N}/u.test(linkText) || NEGATION.test(linkText)) return false;
  if (w.some((x) => STATEMENT_WORDS.has(x))) return false;
  return WORK_NOUNS.has(w[w.length - 1]!);
}

/** True when the sentence only points at sources (see the module comment). */
export function isReferenceSentence(text: string): boolean {
  if (!text.includes('://')) return false;
  let links = 0;
  let workNames = true;
  let rest = text.replace(MARKDOWN_LINK, (_full, linkText: string) => {
    links++;
    if (!namesAWork(linkText)) workNames = false;
    return ' ';
  });
  rest = rest.replace(BARE_URI, () => {
    links++;
    return ' ';
  });
  if (links === 0 || !workNames) return false;
  for (const m of findCitationMarkers(rest).reverse()) rest = rest.slice(0, m.start) + rest.slice(m.end);
  return words(rest).every((w) => LEAD_IN.has(w));
}
