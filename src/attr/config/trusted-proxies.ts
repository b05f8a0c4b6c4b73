/**
 * The grammar of `rate_limit.trusted_proxies` entries: an IPv4 or IPv6
 * address, optionally with a `/prefix` (CIDR). Used by config validation and
 * by the client identity of the rate limiter (src/attr/service/client-identity.ts).
 */
import { isIP } from 'node:net';

/** Parses `a.b.c.d`, an IPv6 address, or either with `/prefix`; undefined when malformed. */
export function parseProxyEntry(entry: string): { address: string; prefix: number | undefined; family: 'ipv4' | 'ipv6' } | undefined {
  const [address = '', prefixText, extra] = entry.split('/');
  if (extra !== undefined) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  if (prefixText === undefined) return { address, prefix: undefined, family };
  if (!/^[0-9]{1,3}$/.test(prefixText)) return undefined;
  const prefix = Number(prefixText);
  if (prefix > (version === 4 ? 32 : 128)) return undefined;
  return { address, prefix, family };
}

/** Config validation: the entries of `rate_limit.trusted_proxies` that do not parse. */
export function invalidProxyEntries(entries: readonly string[]): number[] {
  return entries.flatMap((e, i) => (parseProxyEntry(e) === undefined ? [i] : []));
}

