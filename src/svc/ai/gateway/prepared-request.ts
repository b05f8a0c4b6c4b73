/**
 * A request after admission and planning: everything the later steps
 * (cache lookup, upstream call, verification, record, response) read.
 * Built once by prepare-request.ts; only `run` changes afterwards.
 */
import type { SemanticQuery } from '../../cache/semantic/semantic-cache.ts';
import type { SvcError } from '../../errors.ts';
import type { RouteDecision } from '../routing/route-selector.ts';
import type { Usage } from '../schemas/openai-shapes.ts';
import type { SvcExtension } from '../schemas/svc-extension.ts';
import type { AnswerCheck, AnswerVerification } from './answer-verification.ts';
import type { AnyAiRequest, ApiProfile } from './api-profiles.ts';
import type { RequestRun } from './request-run.ts';

export interface Prepared {
  profile: ApiProfile;
  request: AnyAiRequest;
  ext: SvcExtension;
  run: RequestRun;
  route: RouteDecision;
  fallback: RouteDecision | undefined;
  /** Why the fallback the request named cannot be used; raised only if a fallback is needed. */
  fallbackError: SvcError | undefined;
  upstreamBody: Record<string, unknown>;
  verification: AnswerVerification;
  semanticQuery: SemanticQuery | undefined;
  includeUsage: boolean;
  wantsMetadata: boolean;
  begun: Promise<void>;
}

/** An upstream answer with the outcome of its required verifiers. */
export interface Answer {
  value: unknown;
  usage: Usage | undefined;
  check: AnswerCheck;
  /** The upstream's JSON text of `value`, when it came as one JSON body. */
  text?: string | undefined;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
