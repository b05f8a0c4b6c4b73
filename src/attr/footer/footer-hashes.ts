/**
 * The hashes that bind a response together, all SHA-256 over canonical JSON:
 * - event hash: the event without `event_hash`;
 * - row hash: a source row without `row_hash`;
 * - footer hash: the footer without `footer_hash`, `rendered_text` and
 *   `signature` (the rendered text is derived from the footer and shows the
 *   footer hash, and the signature signs the footer hash, so neither can be
 *   part of what is hashed).
 * Canonical JSON is RFC 8785 (src/core/canonical-json.ts).
 */
import { type KnownCanonicalJson, cutCanonical, joinCanonical } from '../../core/canonical-json.ts';
import { canonicalSha256, sha256Hex } from '../../core/hashing.ts';
import type { SourceFooter, SourceRow, UsageEvent } from '../schemas/attribution-response.ts';

export function eventHash(event: Omit<UsageEvent, 'event_hash'> & { event_hash?: string }): string {
  const { event_hash: _ignored, ...rest } = event;
  return canonicalSha256(rest);
}

export function rowHash(row: Omit<SourceRow, 'row_hash'> & { row_hash?: string }): string {
  const { row_hash: _ignored, ...rest } = row;
  return canonicalSha256(rest);
}

/** `knownRows`: canonical JSON of source rows just serialized by `sealRow` or `checkRowHash`. */
export function footerHash(
  footer: Omit<SourceFooter, 'footer_hash' | 'rendered_text' | 'signature'> & { footer_hash?: string; rendered_text?: string; signature?: unknown },
  knownRows?: KnownCanonicalJson,
): string {
  const { footer_hash: _h, rendered_text: _t, signature: _s, ...rest } = footer;
  return canonicalSha256(rest, knownRows);
}

/**
 * A source row given without `row_hash`, sealed with it: the row, and (for
 * plain-data rows) its canonical JSON with the hash, so that the footer hash
 * computed next does not serialize the row a second time.
 */
export function sealRow<R extends Omit<SourceRow, 'row_hash'>>(rest: R): { row: R & { row_hash: string }; canonical: string | undefined } {
  const cut = cutCanonical(rest, 'row_hash');
  if (cut === undefined || cut.own !== undefined) return { row: { ...rest, row_hash: rowHash(rest) }, canonical: undefined };
  const hash = sha256Hex(joinCanonical(cut.before, cut.after));
  return { row: { ...rest, row_hash: hash }, canonical: joinCanonical(cut.before, `"row_hash":${JSON.stringify(hash)}`, cut.after) };
}

/**
 * Does a row's `row_hash` match the row? Also returns (for plain-data rows)
 * the row's canonical JSON, for a footer hash computed next.
 */
export function checkRowHash(row: SourceRow): { valid: boolean; canonical: string | undefined } {
  const cut = cutCanonical(row, 'row_hash');
  if (cut === undefined) return { valid: row.row_hash === rowHash(row), canonical: undefined };
  return { valid: row.row_hash === sha256Hex(joinCanonical(cut.before, cut.after)), canonical: joinCanonical(cut.before, cut.own, cut.after) };
}

/** Hash of an evidence span or claim: SHA-256 of its exact UTF-8 text. */
export function textHash(text: string): string {
  return sha256Hex(text);
}
