/**
 * The hashes that bind a response together, all SHA-256 over canonical JSON:
 * - event hash: the event without `event_hash`;
 * - row hash: a source row without `row_hash`;
 * - footer hash: the footer without `footer_hash` and `rendered_text` (the
 *   rendered text is derived from the footer and shows the footer hash, so
 *   it cannot be part of what is hashed).
 * Canonical JSON is RFC 8785 (src/core/canonical-json.ts), produced through
 * its faster equivalent in fast-canonical-json.ts.
 */
import { fastCanonicalSha256, sha256HexOneShot } from './fast-canonical-json.ts';
import type { SourceFooter, SourceRow, UsageEvent } from '../schemas/attribution-response.ts';

export function eventHash(event: Omit<UsageEvent, 'event_hash'> & { event_hash?: string }): string {
  const { event_hash: _ignored, ...rest } = event;
  return fastCanonicalSha256(rest);
}

export function rowHash(row: Omit<SourceRow, 'row_hash'> & { row_hash?: string }): string {
  const { row_hash: _ignored, ...rest } = row;
  return fastCanonicalSha256(rest);
}

export function footerHash(footer: Omit<SourceFooter, 'footer_hash' | 'rendered_text'> & { footer_hash?: string; rendered_text?: string }): string {
  const { footer_hash: _h, rendered_text: _t, ...rest } = footer;
  return fastCanonicalSha256(rest);
}

/** Hash of an evidence span or claim: SHA-256 of its exact UTF-8 text. */
export function textHash(text: string): string {
  return sha256HexOneShot(text);
}
