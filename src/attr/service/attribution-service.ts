/**
 * The attribution domain of the service: everything between an
 * authenticated, well-formed request and the response released to the
 * client. Route handlers only parse and call these two methods.
 *
 * Order of a request: readiness gate → size limits → (provider mode:
 * revenue pre-check, allowlist, provider call, response hash) → engine (in
 * a worker thread of the pool, or inline; it hands back the serialised
 * response) → audit-log append (durable) → metrics → release. Every request that passes
 * the gate gets exactly one audit entry, including the ones refused
 * fail-closed here (`outcome: "refused"` with the error code).
 */
import { ID_PREFIXES, newId } from '../../core/ids.ts';
import { sha256Hex } from '../../core/hashing.ts';
import { AuditLogUnavailableError, type AuditLog } from '../audit/audit-log.ts';
import type { AuditRecord } from '../audit/audit-entry.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import { parseGrossRevenue } from '../engine/royalty/gross-revenue.ts';
import { AttrError } from '../errors.ts';
import { completeChat, type Fetch } from '../provider/chat-completions-client.ts';
import { promptOf } from '../provider/chat-messages.ts';
import type { ReadinessGate } from '../readiness/readiness-gate.ts';
import type { AttributionResult, AttributionRunner } from './attribution-runner.ts';
import type { AttributeRequest, ProviderAttributeRequest } from './request-schemas.ts';
import type { ServiceMetrics } from './service-metrics.ts';

export interface AttributionServiceDeps {
  config: ServiceConfig;
  /** Runs the engine (worker pool or inline); undefined when the engine did not load. */
  runner: AttributionRunner | undefined;
  auditLog: AuditLog;
  gate: Pick<ReadinessGate, 'ready'>;
  metrics: ServiceMetrics;
  env: Readonly<Record<string, string | undefined>>;
  fetch?: Fetch;
  now?: () => Date;
}

type Route = AuditRecord['route'];

/**
 * Where a released attribution's time went inside the service, in
 * milliseconds (sent as `Server-Timing` when enabled; decision 171).
 */
export interface AttributionTiming {
  /** The engine call, timed in the thread that ran it. */
  engine: number;
  /** Job handed to the runner → its summary back, minus the engine: the thread hand-offs (inline: the serialisation, done before the summary). */
  handoff: number;
  /** Summary → audit entry durable: record built, live-file check, chained, written. */
  audit: number;
  /** Entry durable → response bytes ready: serialisation the commit did not hide (0 when it did). */
  body: number;
  /** Domain entry → release: everything above plus admission and checks. */
  total: number;
}

/** A response the domain releases: its JSON bytes (audit entry durable) and where its time went. */
export interface ReleasedAttribution {
  body: Buffer;
  timing: AttributionTiming;
}

/** Errors raised after the request's audit entry was written: #refuseOnError must not log them again. */
const audited = new WeakSet<object>();

function markAudited(err: unknown): AttrError {
  const e = AttrError.from(err);
  audited.add(e);
  return e;
}

function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * A lone surrogate has no UTF-8 form: hashing would silently turn it into
 * U+FFFD and the engine could not ground it. Refused as the client's error,
 * before any work (issue 18, item 6).
 */
function wellFormed(field: string, text: string): void {
  if (!text.isWellFormed()) {
    throw new AttrError('invalid_unicode', `${field} contains a lone surrogate (not well-formed Unicode)`, { details: { field } });
  }
}

export class AttributionService {
  readonly #deps: AttributionServiceDeps;
  readonly #now: () => Date;
  /** Attributions between admission and release: the audit entry of a lone one is written without a thread hop. */
  #inFlight = 0;

  constructor(deps: AttributionServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /** POST /v1/attribute: attributes `output` (or the demonstration answer) and logs it. */
  /** Resolves with the response's JSON bytes, released only after its audit entry is durable. */
  async attribute(request: AttributeRequest, requestId: string): Promise<ReleasedAttribution> {
    const entered = performance.now();
    const runner = this.#admit();
    const base = this.#baseRecord('attribute', requestId, request.prompt, request.gross_revenue);
    return this.#counted(() => this.#refuseOnError(base, async () => {
      wellFormed('prompt', request.prompt);
      if (request.output !== undefined) wellFormed('output', request.output);
      this.#limit('prompt', request.prompt, this.#deps.config.limits.max_prompt_bytes);
      if (request.output !== undefined) this.#limit('output', request.output, this.#deps.config.limits.max_output_bytes);
      const submitted = performance.now();
      const result = await runner.attribute({
        prompt: request.prompt,
        ...(request.output === undefined ? {} : { output: request.output }),
        grossRevenue: request.gross_revenue,
        context: this.#context(requestId),
      });
      return this.#release(base, result, entered, submitted);
    }));
  }

  /** POST /v1/provider/attribute: calls the allowlisted provider, hashes its response, attributes, logs, then releases. */
  async attributeWithProvider(request: ProviderAttributeRequest, requestId: string): Promise<ReleasedAttribution> {
    const entered = performance.now();
    const runner = this.#admit();
    const { limits, providers } = this.#deps.config;
    const prompt = promptOf(request.messages);
    const base = this.#baseRecord('provider_attribute', requestId, prompt, request.gross_revenue);
    return this.#counted(() => this.#refuseOnError(base, async () => {
      request.messages.forEach((m, i) => wellFormed(`messages[${i}].content`, m.content));
      if (request.messages.length > limits.max_messages) {
        throw new AttrError('payload_too_large', `at most ${limits.max_messages} messages are accepted`, { details: { field: 'messages', limit: limits.max_messages } });
      }
      const promptBytes = request.messages.reduce((sum, m) => sum + utf8Bytes(m.content), 0);
      if (promptBytes > limits.max_prompt_bytes) {
        throw new AttrError('payload_too_large', `messages exceed ${limits.max_prompt_bytes} bytes`, { details: { field: 'messages', limit_bytes: limits.max_prompt_bytes } });
      }
      // Reject a bad revenue before spending a provider call on a request the engine would refuse.
      parseGrossRevenue(request.gross_revenue);
      const route = providers.find((p) => p.providerId === request.provider_id);
      if (route === undefined) {
        throw new AttrError('unknown_provider', 'provider_id is not in the configured allowlist', { details: { provider_id: request.provider_id } });
      }
      base.provider = { provider_id: route.providerId, model: route.model, response_sha256: null };
      let completion;
      try {
        completion = await completeChat(route, request.messages, this.#deps.env, this.#deps.fetch);
        this.#deps.metrics.providerRequest(route.providerId, 'ok');
      } catch (err) {
        const code = AttrError.from(err).code;
        // A missing key never reaches the network: not a provider request.
        if (code !== 'provider_key_missing') this.#deps.metrics.providerRequest(route.providerId, code);
        throw err;
      }
      base.provider = { provider_id: route.providerId, model: completion.model, response_sha256: completion.responseSha256 };
      const submitted = performance.now();
      const result = await runner.attribute({
        prompt,
        output: completion.content,
        grossRevenue: request.gross_revenue,
        context: { ...this.#context(requestId), provider: { providerId: route.providerId, model: completion.model, responseSha256: completion.responseSha256 } },
      });
      return this.#release(base, result, entered, submitted);
    }));
  }

  /** Runs one attribution counted as in flight (see #append). */
  async #counted<T>(work: () => Promise<T>): Promise<T> {
    this.#inFlight++;
    try {
      return await work();
    } finally {
      this.#inFlight--;
    }
  }

  /** The readiness gate: no attribution until every check passes. */
  #admit(): AttributionRunner {
    if (!this.#deps.gate.ready || this.#deps.runner === undefined) {
      throw new AttrError('not_ready', 'the service is not ready; see GET /readyz');
    }
    return this.#deps.runner;
  }

  #limit(field: 'prompt' | 'output', text: string, limit: number): void {
    if (utf8Bytes(text) > limit) {
      throw new AttrError('payload_too_large', `${field} exceeds ${limit} bytes`, { details: { field, limit_bytes: limit } });
    }
  }

  #context(requestId: string) {
    return { eventId: newId(ID_PREFIXES.event), requestId, operator: this.#deps.config.operator, createdAt: this.#now().toISOString() };
  }

  #baseRecord(route: Route, requestId: string, prompt: string, grossRevenue: string): AuditRecord {
    return {
      request_id: requestId,
      route,
      operator: this.#deps.config.operator,
      outcome: 'refused',
      error_code: null,
      event_id: null,
      event_hash: null,
      event_created_at: null,
      footer_hash: null,
      source_count: 0,
      audit_error_count: 0,
      prompt_sha256: sha256Hex(prompt),
      answer_sha256: null,
      // Only a well-formed amount is kept; anything else is client text and is not logged.
      gross_revenue: /^-?(0|[1-9][0-9]{0,20})(\.[0-9]{1,18})?$/.test(grossRevenue) ? grossRevenue : null,
      provider: null,
    };
  }

  /**
   * Logs the response durably, counts it, and only then hands its bytes back
   * for release. The entry is committed while the response is still being
   * serialised (it needs only the summary); the bytes are released when both
   * are done.
   */
  async #release(base: AuditRecord, result: AttributionResult, entered: number, submitted: number): Promise<ReleasedAttribution> {
    const decided = performance.now();
    const { summary } = result;
    const record: AuditRecord = {
      ...base,
      outcome: summary.status,
      event_id: summary.eventId,
      event_hash: summary.eventHash,
      event_created_at: summary.eventCreatedAt,
      footer_hash: summary.footerHash,
      source_count: summary.sourceCount,
      audit_error_count: summary.auditErrorCount,
      answer_sha256: summary.answerSha256,
    };
    let durable = decided;
    const [, body] = await Promise.all([
      this.#append(record).then(() => {
        durable = performance.now();
      }),
      result.body.catch((err: unknown) => Promise.reject(markAudited(err))),
    ]);
    const released = performance.now();
    const { metrics } = this.#deps;
    metrics.attribution(base.route, summary.status);
    metrics.auditErrors(summary.auditErrorCount, 'response');
    if (summary.status === 'blocked') metrics.blocked('grounding_blocked');
    const timing: AttributionTiming = {
      engine: result.engineMs,
      handoff: Math.max(0, decided - submitted - result.engineMs),
      audit: durable - decided,
      body: Math.max(0, released - durable),
      total: released - entered,
    };
    return { body, timing };
  }

  /**
   * Runs `work`; every refusal — a fail-closed AttrError or an unexpected
   * failure (`internal`) — is logged (outcome `refused`) before the error
   * propagates. Only an audit log that cannot record is not re-logged.
   */
  async #refuseOnError<T>(base: AuditRecord, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (err) {
      const code = AttrError.from(err).code;
      // A body lost after its entry was written (a worker died while serialising) is not logged twice.
      if (code !== 'audit_unavailable' && !audited.has(err as object)) {
        this.#deps.metrics.attribution(base.route, 'refused');
        await this.#append({ ...base, outcome: 'refused', error_code: code }).catch(() => undefined);
      }
      throw err;
    }
  }

  async #append(record: AuditRecord): Promise<void> {
    try {
      // Alone: no other attribution can add an entry to this batch, so the log writes it without a thread hop.
      await this.#deps.auditLog.append(record, { alone: this.#inFlight === 1 });
    } catch (err) {
      this.#deps.metrics.auditErrors(1, 'audit_log');
      if (err instanceof AuditLogUnavailableError) {
        throw new AttrError('audit_unavailable', 'the audit log cannot record this request; nothing was released', { cause: err });
      }
      throw err;
    }
  }
}
