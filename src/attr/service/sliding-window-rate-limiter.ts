/**
 * Per-client sliding-window rate limiting (exact sliding log): a client may
 * make at most `maxRequests` admitted requests in any `windowMs` interval.
 * Each client keeps the timestamps of its admitted requests inside the
 * window, so memory is bounded by the traffic actually admitted. Rejected
 * requests are not recorded: a client that backs off recovers after one window.
 *
 * Per process, in memory (the spec's single-operator boundary); multi-instance
 * deployments rate-limit at their gateway.
 */

export interface RateLimitDecision {
  allowed: boolean;
  /** Admissions left in the current window after this decision. */
  remaining: number;
  /** Milliseconds until the next admission becomes possible (0 when allowed). */
  retryAfterMs: number;
}

interface ClientWindow {
  stamps: number[];
  /** Index of the oldest stamp still in the window; stamps before it are expired. */
  head: number;
}

export class SlidingWindowRateLimiter {
  readonly windowMs: number;
  readonly maxRequests: number;
  readonly #clients = new Map<string, ClientWindow>();
  readonly #now: () => number;
  #lastSweep = 0;

  constructor(options: { windowMs: number; maxRequests: number; now?: () => number }) {
    this.windowMs = options.windowMs;
    this.maxRequests = options.maxRequests;
    this.#now = options.now ?? (() => performance.now());
  }

  /** Decides for one request of `clientKey` and records it when admitted. */
  admit(clientKey: string): RateLimitDecision {
    const now = this.#now();
    this.#sweep(now);
    let client = this.#clients.get(clientKey);
    if (client === undefined) {
      client = { stamps: [], head: 0 };
      this.#clients.set(clientKey, client);
    }
    const cutoff = now - this.windowMs;
    while (client.head < client.stamps.length && client.stamps[client.head]! <= cutoff) client.head++;
    // Compact occasionally so the array does not grow without bound.
    if (client.head > 1024 && client.head * 2 > client.stamps.length) {
      client.stamps = client.stamps.slice(client.head);
      client.head = 0;
    }
    const inWindow = client.stamps.length - client.head;
    if (inWindow >= this.maxRequests) {
      const oldest = client.stamps[client.head]!;
      return { allowed: false, remaining: 0, retryAfterMs: Math.max(1, Math.ceil(oldest + this.windowMs - now)) };
    }
    client.stamps.push(now);
    return { allowed: true, remaining: this.maxRequests - inWindow - 1, retryAfterMs: 0 };
  }

  /** Number of clients currently tracked (for tests and metrics). */
  get trackedClients(): number {
    return this.#clients.size;
  }

  /** Drops clients whose every stamp has expired, at most once per window. */
  #sweep(now: number): void {
    if (now - this.#lastSweep < this.windowMs) return;
    this.#lastSweep = now;
    const cutoff = now - this.windowMs;
    for (const [key, client] of this.#clients) {
      const newest = client.stamps[client.stamps.length - 1];
      if (newest === undefined || newest <= cutoff) this.#clients.delete(key);
    }
  }
}
