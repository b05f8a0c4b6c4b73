/**
 * The attribution domain of the service: everything between an
 * authenticated, well-formed request and the response released to the
 * client. Route handlers only parse and call these two methods.
 *
 * Order of a request: readiness gate → size limits → (provider mode:
 * revenue pre-check, allowlist, provider call, response hash) → engine →
 * audit-log append (durable) → metrics → release. Every request that passes
 * the gate gets exactly one audit entry, including the ones refused
 * fail-closed here (`outcome: "refused"` with the error code).
 */
import { ID_PREFIXES, newId } from '../../core/ids.ts';
import { sha256Hex } from '../../core/hashing.ts';
import { AuditLogUnavailableError, type AuditLog } from '../audit/audit-log.ts';
import type { AuditRecord } from '../audit/audit-entry.ts';
import type { ServiceConfig } from '../config/service-config.ts';
import type { AttributionEngine, AttributionResponse } from '../engine/index.ts';
import { parseGrossRevenue } from '../engine/royalty/gross-revenue.ts';
import { AttrError } from '../errors.ts';
import { completeChat, type Fetch } from '../provider/chat-completions-client.ts';
import { promptOf } from '../provider/chat-messages.ts';
import type { ReadinessGate } from '../readiness/readiness-gate.ts';
import type { AttributeRequest, ProviderAttributeRequest } from './request-schemas.ts';
import type { ServiceMetrics } from './service-metrics.ts';

export interface AttributionServiceDeps {
  config: ServiceConfig;
  engine: AttributionEngine | undefined;
  auditLog: AuditLog;
  gate: Pick<ReadinessGate, 'ready'>;
  metrics: ServiceMetrics;
  env: Readonly<Record<string, string | undefined>>;
  fetch?: Fetch;
  now?: () => Date;
}

type Route = AuditRecord['route'];

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

  constructor(deps: AttributionServiceDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? (() => new Date());
  }

  /** POST /v1/attribute: attributes `output` (or the demonstration answer) and logs it. */
  async attribute(request: AttributeRequest, requestId: string): Promise<AttributionResponse> {
    const engine = this.#admit();
    const base = this.#baseRecord('attribute', requestId, request.prompt, request.gross_revenue);
    return this.#refuseOnError(base, async () => {
      wellFormed('prompt', request.prompt);
      if (request.output !== undefined) wellFormed('output', request.output);
      this.#limit('prompt', request.prompt, this.#deps.config.limits.max_prompt_bytes);
      if (request.output !== undefined) this.#limit('output', request.output, this.#deps.config.limits.max_output_bytes);
      const response = engine.attribute({
        prompt: request.prompt,
        ...(request.output === undefined ? {} : { output: request.output }),
        grossRevenue: request.gross_revenue,
        context: this.#context(requestId),
      });
      return this.#release(base, response);
    });
  }

  /** POST /v1/provider/attribute: calls the allowlisted provider, hashes its response, attributes, logs, then releases. */
  async attributeWithProvider(request: ProviderAttributeRequest, requestId: string): Promise<AttributionResponse> {
    const engine = this.#admit();
    const { limits, providers } = this.#deps.config;
    const prompt = promptOf(request.messages);
    const base = this.#baseRecord('provider_attribute', requestId, prompt, request.gross_revenue);
    return this.#refuseOnError(base, async () => {
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
      const response = engine.attribute({
        prompt,
        output: completion.content,
        grossRevenue: request.gross_revenue,
        context: { ...this.#context(requestId), provider: { providerId: route.providerId, model: completion.model, responseSha256: completion.responseSha256 } },
      });
      return this.#release(base, response);
    });
  }

  /** The readiness gate: no attribution until every check passes. */
  #admit(): AttributionEngine {
    if (!this.#deps.gate.ready || this.#deps.engine === undefined) {
      throw new AttrError('not_ready', 'the service is not ready; see GET /readyz');
    }
    return this.#deps.engine;
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

  /** Logs the response durably, counts it, and only then hands it back for release. */
  async #release(base: AuditRecord, response: AttributionResponse): Promise<AttributionResponse> {
    const record: AuditRecord = {
      ...base,
      outcome: response.status,
      event_id: response.event.event_id,
      event_hash: response.event.event_hash,
      event_created_at: response.event.created_at,
      footer_hash: response.source_footer.footer_hash,
      source_count: response.source_footer.source_rows.length,
      audit_error_count: response.audit_errors.length,
      answer_sha256: response.event.answer_sha256,
    };
    await this.#append(record);
    const { metrics } = this.#deps;
    metrics.attribution(base.route, response.status);
    metrics.auditErrors(response.audit_errors.length, 'response');
    if (response.status === 'blocked') metrics.blocked('grounding_blocked');
    return response;
  }

  /**
   * Runs `work`; every refusal — a fail-closed AttrError or an unexpected
   * failure (`internal`) — is logged (outcome `refused`) before the error
   * propagates. Only an audit log that cannot record is not re-logged.
   */
  async #refuseOnError(base: AuditRecord, work: () => Promise<AttributionResponse>): Promise<AttributionResponse> {
    try {
      return await work();
    } catch (err) {
      const code = AttrError.from(err).code;
      if (code !== 'audit_unavailable') {
        this.#deps.metrics.attribution(base.route, 'refused');
        await this.#append({ ...base, outcome: 'refused', error_code: code }).catch(() => undefined);
      }
      throw err;
    }
  }

  async #append(record: AuditRecord): Promise<void> {
    try {
      await this.#deps.auditLog.append(record);
    } catch (err) {
      this.#deps.metrics.auditErrors(1, 'audit_log');
      if (err instanceof AuditLogUnavailableError) {
        throw new AttrError('audit_unavailable', 'the audit log cannot record this request; nothing was released', { cause: err });
      }
      throw err;
    }
  }
}
