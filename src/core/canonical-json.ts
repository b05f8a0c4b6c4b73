/**
 * Canonical JSON (RFC 8785, JSON Canonicalization Scheme): sorted keys, no
 * insignificant white space, ECMAScript number formatting. Every hash the
 * project publishes (ledger events, bundle hashes, footers, audit entries) is
 * computed over this form so that two implementations agree byte for byte.
 */
import canonicalizeImpl from 'canonicalize';

export function canonicalJson(value: unknown): string {
  const text = canonicalizeImpl(value);
  if (text === undefined) throw new TypeError('value cannot be canonicalized (undefined at the top level)');
  return text;
}
