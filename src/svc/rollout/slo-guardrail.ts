/**
 * SLO guardrail: a sliding-window monitor of request latency and failure
 * rate. When the window's p95 latency or failure rate is over the SLO (with
 * enough samples to mean something), it trips: advanced reducers switch off
 * (the exact path and observe mode stay), and the listener writes an
 * alert-level log line and a ledger event. It recovers when the window has
 * stayed healthy — under 80 % of the latency SLO and 50 % of the failure
 * SLO, or too quiet to judge — for `recovery_seconds` (docs/rollout.md).
 *
 * Recording is O(1) into a fixed ring buffer; the window is re-evaluated at
 * most once per `check_interval_ms`, so the hot path never sorts.
 */
import Type, { type Static } from 'typebox';

export const GuardrailConfig = Type.Object(
  {
    enabled: Type.Boolean(),
    window_seconds: Type.Integer({ minimum: 5, maximum: 3600 }),
    latency_p95_ms: Type.Number({ exclusiveMinimum: 0 }),
    max_failure_rate: Type.Number({ minimum: 0, maximum: 1 }),
    /** Fewer samples than this in the window never trip (one slow request is not an incident). */
    min_samples: Type.Integer({ minimum: 1 }),
    recovery_seconds: Type.Integer({ minimum: 0, maximum: 86_400 }),
    check_interval_ms: Type.Integer({ minimum: 0, maximum: 60_000 }),
  },
  { additionalProperties: false },
);
export type GuardrailConfig = Static<typeof GuardrailConfig>;

export const DEFAULT_GUARDRAIL_CONFIG: GuardrailConfig = {
  enabled: true,
  window_seconds: 60,
  latency_p95_ms: 250,
  max_failure_rate: 0.05,
  min_samples: 50,
  recovery_seconds: 300,
  check_interval_ms: 1000,
};

/** Hysteresis: recovery needs clearly healthy numbers, so the guardrail does not flap at the threshold. */
const RECOVERY_LATENCY_FRACTION = 0.8;
const RECOVERY_FAILURE_FRACTION = 0.5;
const CAPACITY = 8192;

export interface WindowStats {
  samples: number;
  p95_ms: number;
  failure_rate: number;
}

export interface GuardrailState {
  tripped: boolean;
  since: string | null;
  reason: string | null;
  window: WindowStats;
  slo: { latency_p95_ms: number; max_failure_rate: number };
}

export interface GuardrailListener {
  tripped(state: GuardrailState): void;
  recovered(state: GuardrailState): void;
}

export class SloGuardrail {
  readonly config: GuardrailConfig;
  readonly #listener: GuardrailListener | undefined;
  readonly #now: () => number;
  readonly #latency = new Float64Array(CAPACITY);
  readonly #at = new Float64Array(CAPACITY);
  readonly #failed = new Uint8Array(CAPACITY);
  readonly #scratch = new Float64Array(CAPACITY);
  #next = 0;
  #count = 0;
  #lastCheck = -Infinity;
  #tripped = false;
  #since: number | null = null;
  #reason: string | null = null;
  #healthySince: number | null = null;
  #stats: WindowStats = { samples: 0, p95_ms: 0, failure_rate: 0 };

  constructor(config: GuardrailConfig = DEFAULT_GUARDRAIL_CONFIG, options: { listener?: GuardrailListener; now?: () => number } = {}) {
    this.config = config;
    this.#listener = options.listener;
    this.#now = options.now ?? Date.now;
  }

  /** Records one request outcome; re-evaluates the window when the check interval has passed. */
  record(latencyMs: number, ok: boolean): void {
    if (!this.config.enabled) return;
    const now = this.#now();
    const i = this.#next;
    this.#latency[i] = latencyMs;
    this.#at[i] = now;
    this.#failed[i] = ok ? 0 : 1;
    this.#next = (i + 1) % CAPACITY;
    if (this.#count < CAPACITY) this.#count++;
    if (now - this.#lastCheck >= this.config.check_interval_ms) this.check(now);
  }

  /** True while advanced reducers must stay off. */
  get tripped(): boolean {
    return this.#tripped;
  }

  /** Computes the window and applies trip / recovery transitions. Called by `record`; tests and timers may call it directly. */
  check(now = this.#now()): GuardrailState {
    this.#lastCheck = now;
    this.#stats = this.#window(now);
    const { samples, p95_ms, failure_rate } = this.#stats;
    const enough = samples >= this.config.min_samples;
    if (!this.#tripped) {
      const latencyOver = enough && p95_ms > this.config.latency_p95_ms;
      const failuresOver = enough && failure_rate > this.config.max_failure_rate;
      if (latencyOver || failuresOver) {
        this.#tripped = true;
        this.#since = now;
        this.#healthySince = null;
        this.#reason = latencyOver
          ? `p95 latency ${p95_ms.toFixed(1)} ms over the SLO of ${this.config.latency_p95_ms} ms`
          : `failure rate ${(failure_rate * 100).toFixed(2)} % over the SLO of ${(this.config.max_failure_rate * 100).toFixed(2)} %`;
        this.#listener?.tripped(this.state());
      }
    } else {
      const healthy = !enough || (p95_ms <= this.config.latency_p95_ms * RECOVERY_LATENCY_FRACTION && failure_rate <= this.config.max_failure_rate * RECOVERY_FAILURE_FRACTION);
      if (!healthy) this.#healthySince = null;
      else {
        this.#healthySince ??= now;
        if (now - this.#healthySince >= this.config.recovery_seconds * 1000) {
          const last = this.state();
          this.#tripped = false;
          this.#since = null;
          this.#reason = null;
          this.#healthySince = null;
          this.#listener?.recovered({ ...last, tripped: false });
        }
      }
    }
    return this.state();
  }

  state(): GuardrailState {
    return {
      tripped: this.#tripped,
      since: this.#since === null ? null : new Date(this.#since).toISOString(),
      reason: this.#reason,
      window: { ...this.#stats },
      slo: { latency_p95_ms: this.config.latency_p95_ms, max_failure_rate: this.config.max_failure_rate },
    };
  }

  #window(now: number): WindowStats {
    const from = now - this.config.window_seconds * 1000;
    // The window's latencies go to a reused typed array and are sorted natively (numeric order, no
    // comparator calls): a full window of 8,192 samples sorted with a JS comparator once a second held
    // the event loop for milliseconds under load.
    const latencies = this.#scratch;
    let n = 0;
    let failures = 0;
    for (let k = 0; k < this.#count; k++) {
      if (this.#at[k]! < from) continue;
      latencies[n++] = this.#latency[k]!;
      failures += this.#failed[k]!;
    }
    if (n === 0) return { samples: 0, p95_ms: 0, failure_rate: 0 };
    const window = latencies.subarray(0, n).sort();
    const p95 = window[Math.min(n - 1, Math.ceil(0.95 * n) - 1)]!;
    return { samples: n, p95_ms: p95, failure_rate: failures / n };
  }
}
