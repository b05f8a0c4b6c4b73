/**
 * Which methods a path has, so a request with a method the path does not
 * serve is answered 405 with an `Allow` header (RFC 9110 §15.5.6) instead of
 * fastify's 404. Built from the routes as they register (`onRoute`).
 */
export class RouteTable {
  readonly #routes: Array<{ methods: string[]; pattern: RegExp }> = [];

  add(method: string | string[], url: string): void {
    const methods = (Array.isArray(method) ? method : [method]).map((m) => m.toUpperCase());
    // `:param` matches one path segment; `*` the rest. Everything else is literal.
    const source = url
      .split('/')
      .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg === '*' ? '.*' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    this.#routes.push({ methods, pattern: new RegExp(`^${source}$`) });
  }

  /** The methods registered for `url`'s path (query ignored), sorted; empty when no route has the path. */
  methodsFor(url: string): string[] {
    const pathOnly = url.split('?', 1)[0]!;
    const out = new Set<string>();
    for (const r of this.#routes) if (r.pattern.test(pathOnly)) for (const m of r.methods) out.add(m);
    return [...out].sort();
  }
}
