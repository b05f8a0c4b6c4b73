/**
 * Verification handles: `attr://verify/source-footer/<suffix>`, where the
 * suffix is the first 32 hex digits of SHA-256 over the canonical JSON of
 * the event id, event hash, source label and content-hash prefix. The same
 * event, label and source always give the same handle; any change to one of
 * them gives a different handle, so a copied or edited row cannot keep it.
 */
import { canonicalSha256 } from '../../core/hashing.ts';

export const HANDLE_PREFIX = 'attr://verify/source-footer/';

export function verificationHandle(eventId: string, eventHash: string, sourceLabel: string, contentHashPrefix: string): string {
  const suffix = canonicalSha256({ content_hash_prefix: contentHashPrefix, event_hash: eventHash, event_id: eventId, source_label: sourceLabel });
  return `${HANDLE_PREFIX}${suffix.slice(0, 32)}`;
}

export const CONTENT_HASH_PREFIX_LENGTH = 12;
