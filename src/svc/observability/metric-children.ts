/**
 * prom-client children by label values, created on first use. `inc(labels)`
 * and `observe(labels, v)` validate the label names and hash the label
 * object on every call; a child does neither, and the hot paths (one HTTP
 * request, one AI request) touch several labelled series each. Only for
 * label values from small closed sets (route templates, status classes,
 * enum words): every distinct combination is kept for the process lifetime,
 * as prom-client itself keeps every series.
 */
export class MetricChildren<T> {
  readonly #children = new Map<string, T>();
  readonly #make: (values: string[]) => T;

  /** `make` is `(values) => metric.labels(...values)`, values in the metric's `labelNames` order. */
  constructor(make: (values: string[]) => T) {
    this.#make = make;
  }

  get(...values: string[]): T {
    const key = values.length === 1 ? values[0]! : values.join('\u0000');
    let child = this.#children.get(key);
    if (child === undefined) {
      child = this.#make(values);
      this.#children.set(key, child);
    }
    return child;
  }
}
