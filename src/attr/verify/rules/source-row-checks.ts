/**
 * Per-row facts several rules share: is the row's handle the one its event,
 * label and content hash imply; does its row hash recompute; does the
 * rendered footer show its locators. A row that passes all three is a
 * "verified" source row, the only kind citation markers and links may
 * resolve to (rules 1 and 2).
 */
import type { SourceRow } from '../../schemas/attribution-response.ts';
import { CONTENT_HASH_PREFIX_LENGTH, verificationHandle } from '../../footer/handles.ts';
import { rowHash } from '../../footer/footer-hashes.ts';
import type { FooterUnderReview, RuleContext } from './rule-context.ts';

export interface RowFacts {
  row: SourceRow;
  handleValid: boolean;
  handleShown: boolean;
  rowHashValid: boolean;
  prefixValid: boolean;
  locatorsShown: boolean;
  verified: boolean;
}

/** `known`: what the caller has already established (see RuleContext); absent, everything is derived here. */
export function rowFacts(footer: FooterUnderReview, known: Pick<RuleContext, 'knownRowHashValidity' | 'integrityByConstruction'> = {}): RowFacts[] {
  const built = known.integrityByConstruction === true;
  return footer.source_rows.map((row, i) => {
    const prefixValid = row.content_hash_prefix === row.hash.slice(0, CONTENT_HASH_PREFIX_LENGTH);
    const handleValid = built || row.verify === verificationHandle(footer.event_id, footer.event_hash, row.label, row.content_hash_prefix);
    const text = footer.rendered_text;
    const handleShown = built || text.includes(`  verify: ${row.verify}\n`);
    const locatorsShown = built || (text.includes(`  uri: ${row.uri}\n`) && handleShown && text.includes(`  hash: sha256:${row.content_hash_prefix} `));
    const rowHashValid = built || (known.knownRowHashValidity?.[i] ?? row.row_hash === rowHash(row));
    return { row, handleValid, handleShown, rowHashValid, prefixValid, locatorsShown, verified: handleValid && handleShown && rowHashValid && prefixValid && locatorsShown };
  });
}
