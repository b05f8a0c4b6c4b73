/**
 * Who a request comes from, for rate limiting (docs/decisions/130-rate-limit-identity-and-buckets.md).
 *
 * The TCP peer address, unless that peer is a configured trusted proxy: then
 * `X-Forwarded-For` is read from the right, skipping trusted proxies, and the
 * first address that is not one of them is the client. A header sent by an
 * untrusted peer is ignored, so a client cannot choose its own bucket.
 */
import { BlockList, isIP } from 'node:net';
import { parseProxyEntry as parseEntry } from '../config/trusted-proxies.ts';

/** IPv4-mapped IPv6 (`::ffff:10.0.0.1`) is compared as IPv4. */
function normalise(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1]! : address;
}

export class ClientIdentity {
  readonly #trusted = new BlockList();
  readonly #any: boolean;

  constructor(trustedProxies: readonly string[]) {
    for (const entry of trustedProxies) {
      const parsed = parseEntry(entry);
      if (parsed === undefined) throw new Error(`invalid trusted proxy entry: ${entry}`);
      if (parsed.prefix === undefined) this.#trusted.addAddress(parsed.address, parsed.family);
      else this.#trusted.addSubnet(parsed.address, parsed.prefix, parsed.family);
    }
    this.#any = trustedProxies.length > 0;
  }

  #isTrusted(address: string): boolean {
    const a = normalise(address);
    const version = isIP(a);
    return version !== 0 && this.#trusted.check(a, version === 4 ? 'ipv4' : 'ipv6');
  }

  /** The client address of a request with peer `peer` and the raw `X-Forwarded-For` header value(s). */
  resolve(peer: string, forwardedFor: string | string[] | undefined): string {
    const direct = normalise(peer);
    if (!this.#any || forwardedFor === undefined || !this.#isTrusted(direct)) return direct;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor).split(',').map((h) => h.trim()).filter((h) => h !== '');
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = normalise(hops[i]!);
      // A malformed hop ends the trusted chain: attribute the request to the last proxy that wrote it.
      if (isIP(hop) === 0) return i === hops.length - 1 ? direct : normalise(hops[i + 1]!);
      if (!this.#isTrusted(hop)) return hop;
    }
    // Every hop is a trusted proxy: the leftmost is the closest thing to a client.
    return hops.length > 0 ? normalise(hops[0]!) : direct;
  }
}
