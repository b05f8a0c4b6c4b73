/**
 * On whose page a display-ready WiCE claim was grounded. Every row's cited
 * page is one source of a corpus shared by all rows, so a claim can become
 * ready on a window of another row's page: a page nobody cited for it. The
 * bench counts such a claim as ready like any other; this tells them apart.
 *
 * The claim's citations are the `source_id` of each of its claim rows in the
 * footer (one row per claim unit; a row cites the one source holding its
 * evidence window, and a ready footer has a source on every row, rule 14).
 * Against the row's own source id:
 *
 * - `own`: every claim row cites the row's own page;
 * - `mixed`: some claim rows cite it, some another page;
 * - `other`: no claim row cites it (a row without a source counts as not
 *   citing it, as does a footer without claim rows).
 */
import { WICE_LABELS, type WiceLabel } from './wice-corpus.ts';

export type ReadyPage = 'own' | 'mixed' | 'other';

export const READY_PAGES: readonly ReadyPage[] = ['own', 'mixed', 'other'];

/** Classifies one ready claim by the sources its claim rows cite (see the module comment). */
export function readyPage(ownSourceId: string, cited: readonly (string | null)[]): ReadyPage {
  const mine = cited.filter((id) => id === ownSourceId).length;
  if (mine === 0) return 'other';
  return mine === cited.length ? 'own' : 'mixed';
}

/** What the tally needs of an outcome: its label and, when ready, the page it was ready on. */
export interface ReadyPageOutcome {
  label: WiceLabel;
  status: 'ready' | 'blocked';
  /** null when blocked. */
  readyOn: ReadyPage | null;
}

export type ReadyPageCounts = Record<WiceLabel, { ready: number } & Record<ReadyPage, number>>;

/** Per label: ready claims, and how many of them were ready on their own page, on a mix, or on another row's page only. */
export function readyPageCounts(outcomes: readonly ReadyPageOutcome[]): ReadyPageCounts {
  const counts = Object.fromEntries(WICE_LABELS.map((l) => [l, { ready: 0, own: 0, mixed: 0, other: 0 }])) as ReadyPageCounts;
  for (const o of outcomes) {
    if (o.status !== 'ready') continue;
    if (o.readyOn === null) throw new Error(`a ready ${o.label} outcome has no ready page`);
    counts[o.label].ready++;
    counts[o.label][o.readyOn]++;
  }
  return counts;
}
