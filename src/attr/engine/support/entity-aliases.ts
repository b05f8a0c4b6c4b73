/**
 * Names of one country or nation that a page and a claim may use for each
 * other: the country, its demonym, its short or older name ("United States"
 * / "American" / "USA", "England" / "English", "Netherlands" / "Dutch").
 * Only pairs that the entity check's variant rule (a shared prefix of five
 * letters, support-judge.ts `hasVariant`) cannot see are listed: "Canada" /
 * "Canadian" and "Libya" / "Libyan" need no entry. General knowledge, kept as
 * data; a word that is also an ordinary word in lower case ("Turkey",
 * "Polish", "China") is left out, since the page's terms are matched in
 * lower case.
 */
import { contentTokens } from '../text/tokenizer.ts';

const GROUPS: readonly (readonly string[])[] = [
  ['United States', 'United States of America', 'America', 'American', 'Americans', 'USA'],
  ['United Kingdom', 'Britain', 'Great Britain', 'British', 'Briton', 'Britons', 'UK'],
  ['England', 'English'],
  ['Scotland', 'Scottish', 'Scots'],
  ['Wales', 'Welsh'],
  ['Ireland', 'Irish'],
  ['France', 'French'],
  ['Germany', 'German', 'Germans'],
  ['Spain', 'Spanish', 'Spaniard', 'Spaniards'],
  ['Netherlands', 'Holland', 'Dutch'],
  ['Switzerland', 'Swiss'],
  ['Sweden', 'Swedish', 'Swede', 'Swedes'],
  ['Denmark', 'Danish', 'Dane', 'Danes'],
  ['Norway', 'Norwegian', 'Norwegians'],
  ['Finland', 'Finnish', 'Finn', 'Finns'],
  ['Greece', 'Greek', 'Greeks'],
  ['Portugal', 'Portuguese'],
  ['Japan', 'Japanese'],
  ['Thailand', 'Thai'],
  ['Philippines', 'Filipino', 'Filipinos', 'Philippine'],
  ['Peru', 'Peruvian', 'Peruvians'],
  ['Soviet Union', 'USSR', 'Soviet'],
  ['New Zealand', 'New Zealander', 'New Zealanders'],
  // Further pairs the shared-prefix rule misses (a shared prefix shorter than five letters, or than the shorter
  // name less one): the rest of the world's common country / demonym pairs, so the table is not a sample.
  ['Italy', 'Italian', 'Italians'],
  ['Belgium', 'Belgian', 'Belgians'],
  ['Hungary', 'Hungarian', 'Hungarians'],
  ['Lebanon', 'Lebanese'],
  ['Iran', 'Iranian', 'Iranians'],
  ['Iraq', 'Iraqi', 'Iraqis'],
  ['Cuba', 'Cuban', 'Cubans'],
  ['Oman', 'Omani', 'Omanis'],
  ['Cyprus', 'Cypriot', 'Cypriots'],
  ['Mozambique', 'Mozambican', 'Mozambicans'],
  ['Laos', 'Laotian', 'Laotians'],
  ['Fiji', 'Fijian', 'Fijians'],
  ['Mali', 'Malian', 'Malians'],
  ['Czech Republic', 'Czechia', 'Czech'],
  ['Myanmar', 'Burma', 'Burmese'],
  ['United Arab Emirates', 'UAE', 'Emirati', 'Emiratis'],
];

/** Each name as its content tokens, with the other names of its group, by its first token. */
const NAMES = new Map<string, EntityAlias[]>();
for (const group of GROUPS) {
  const tokens = group.map((n) => contentTokens(n));
  tokens.forEach((terms, i) => {
    const list = NAMES.get(terms[0]!) ?? [];
    list.push({ terms, others: tokens.filter((_, k) => k !== i) });
    NAMES.set(terms[0]!, list);
  });
}

export interface EntityAlias {
  /** The claim's tokens that write the name ("unit", "state"). */
  terms: readonly string[];
  /** The other names of the same country or nation, each as its tokens. */
  others: readonly (readonly string[])[];
}

/**
 * The names of the table a claim writes with capitals, found as runs of its
 * capitalised tokens ("the United States National Film Registry" → "United
 * States"). Longer names are matched first.
 */
export function entityAliases(spans: ReadonlyArray<{ term: string; capitalized: boolean }>): EntityAlias[] {
  const out: EntityAlias[] = [];
  for (let i = 0; i < spans.length; i++) {
    if (!spans[i]!.capitalized) continue;
    let best: EntityAlias | undefined;
    for (const name of NAMES.get(spans[i]!.term) ?? []) {
      if (best !== undefined && name.terms.length <= best.terms.length) continue;
      if (name.terms.every((t, k) => spans[i + k]?.term === t && spans[i + k]!.capitalized)) best = name;
    }
    if (best !== undefined) out.push(best);
  }
  return out;
}
