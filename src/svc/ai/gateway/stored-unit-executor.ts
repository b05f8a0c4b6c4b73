/**
 * Executes a stored AI work unit through the AI gateway, like any other
 * request (`POST /v1/work-units/{id}/execute`, the inline execute, gRPC
 * `Execute`/`ExecuteInline`, `svc execute --kind prompt_request`, `svc
 * work-unit execute`): the unit's payload is the OpenAI-compatible request
 * (`prompt_request` → chat completion, `completion_request` → completion,
 * `embedding_request` → embeddings), the unit's contract and the execute
 * options (`mode`, `namespace`) become the `svc` extension, and the gateway
 * records plan, compute manifest and ledger events against the unit's own
 * id. The answer is the Execute result with the provider-compatible
 * response in `output.response`.
 */
import { requirePermission } from '../../auth/principal.ts';
import type { RequestContext } from '../../context.ts';
import { SvcError } from '../../errors.ts';
import { PlanOptions } from '../../plans/plan.ts';
import { validate } from '../../validation.ts';
import type { WorkUnitRecord } from '../../work-units/work-unit.ts';
import { ChatCompletionRequest, CompletionRequest, EmbeddingRequest } from '../schemas/ai-requests.ts';
import { SvcExtension } from '../schemas/svc-extension.ts';
import type { AiGateway, AiResult } from './ai-gateway.ts';

/** The work unit kinds the gateway executes, and the model used when the payload names none. */
export const AI_WORK_UNIT_KINDS = ['prompt_request', 'completion_request', 'embedding_request'] as const;
const DEFAULT_MODEL = 'auto';

export function isAiWorkUnitKind(kind: string): boolean {
  return (AI_WORK_UNIT_KINDS as readonly string[]).includes(kind);
}

/** The Execute result of an AI work unit: the spec's fields, the answer, and what the gateway did. */
export interface AiExecuteResult {
  work_unit_id: string;
  manifest_id: string;
  accepted: boolean;
  mode: 'observe' | 'enforce';
  contract: string;
  plan_id: string;
  policy_bundle_id: string;
  output: {
    /** SHA-256 of the canonical answer (the compute manifest's `result.output_sha256`). */
    sha256: string;
    /** The provider-compatible response (chat completion, completion or embeddings list). */
    response: unknown;
  };
  details: {
    /** Size of the stored request payload. */
    bytes_in: number;
    /** A compute manifest stores no bytes. */
    bytes_stored: 0;
    cache: string;
    route: string | null;
    fallback_used: boolean;
    verifier: string | null;
    tokens_avoided: number;
  };
}

export class StoredUnitExecutor {
  readonly #gateway: AiGateway;
  constructor(gateway: AiGateway) {
    this.#gateway = gateway;
  }

  /** Runs `wu` (already visible to the caller, not yet executed) through the gateway. */
  async execute(ctx: RequestContext, wu: WorkUnitRecord, rawOptions: unknown = {}): Promise<AiExecuteResult> {
    requirePermission(ctx.principal, 'work_units:write');
    const options = validate(PlanOptions, rawOptions ?? {}, 'invalid_work_unit');
    if (options.transforms && options.transforms.length > 0) {
      throw new SvcError('invalid_work_unit', `transforms apply to byte_object work units; a ${wu.kind} runs the AI gateway's plan (contract: ${wu.requested_contract})`, { workUnitId: wu.id });
    }
    if (wu.payload.kind !== 'json') throw new SvcError('invalid_work_unit', `work unit ${wu.id} carries no request to execute`, { workUnitId: wu.id });
    const request = this.#request(wu, wu.payload.value, options);
    const call = { wantsMetadata: false, workUnit: { id: wu.id, tenant: wu.tenant, logical_ref: wu.logical_ref } };
    let result: AiResult;
    if (wu.kind === 'prompt_request') result = await this.#gateway.chat(ctx, validate(ChatCompletionRequest, request, 'invalid_work_unit') as ChatCompletionRequest, call);
    else if (wu.kind === 'completion_request') result = await this.#gateway.completions(ctx, validate(CompletionRequest, request, 'invalid_work_unit') as CompletionRequest, call);
    else if (wu.kind === 'embedding_request') result = await this.#gateway.embeddings(ctx, validate(EmbeddingRequest, request, 'invalid_work_unit') as EmbeddingRequest, call);
    else throw new SvcError('invalid_work_unit', `work unit ${wu.id} is a ${wu.kind}, not an AI request`, { workUnitId: wu.id });
    // Streaming was taken out of the request above: an execute answers once.
    if (result.kind !== 'json') throw new SvcError('internal', 'the gateway streamed an execute request', { workUnitId: wu.id });
    const m = result.meta;
    return {
      work_unit_id: m.work_unit_id,
      manifest_id: m.manifest_id,
      accepted: true,
      mode: m.mode as AiExecuteResult['mode'],
      contract: m.contract,
      plan_id: m.plan_id,
      policy_bundle_id: m.policy_bundle_id,
      output: { sha256: m.output_sha256 ?? '', response: result.body },
      details: { bytes_in: wu.payload_size, bytes_stored: 0, cache: m.cache, route: m.route, fallback_used: m.fallback_used, verifier: m.verifier, tokens_avoided: m.tokens_avoided },
    };
  }

  /**
   * The OpenAI-compatible request of a stored payload: `model` defaults to
   * `auto`; streaming is removed; the unit's contract and the execute options
   * go into `svc` (the tenant is the unit's, so `svc.tenant` is dropped).
   */
  #request(wu: WorkUnitRecord, payload: Record<string, unknown>, options: PlanOptions): Record<string, unknown> {
    const { stream: _stream, stream_options: _streamOptions, svc, ...rest } = payload;
    const ext = validate(SvcExtension, svc ?? {}, 'invalid_work_unit');
    const { tenant: _tenant, ...extension } = ext;
    return {
      model: DEFAULT_MODEL,
      ...rest,
      svc: {
        ...extension,
        contract: wu.requested_contract as SvcExtension['contract'],
        ...(options.mode ? { mode: options.mode } : {}),
        ...(options.namespace ? { namespace: options.namespace } : {}),
      },
    };
  }
}
