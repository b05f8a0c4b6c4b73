/**
 * What identifies an answer in the caches: the output-affecting fields of a
 * request (the exact-cache key) and the semantic-cache question (query text,
 * domain, source fingerprints, policy, freshness).
 */
import { canonicalSha256 } from '../../../core/hashing.ts';
import type { SemanticQuery } from '../../cache/semantic/semantic-cache.ts';
import type { RouteDecision } from '../routing/route-selector.ts';
import { NON_OUTPUT_FIELDS } from '../schemas/ai-requests.ts';
import type { SvcExtension } from '../schemas/svc-extension.ts';
import type { AnyAiRequest, ApiProfile } from './api-profiles.ts';

/** Default freshness of semantic hits when the request names none. */
export const DEFAULT_SEMANTIC_MAX_AGE_SECONDS = 3600;

/** Every output-affecting field: the request minus transport/bookkeeping fields, plus the svc options that change the answer or its validity. */
export function keyFields(request: AnyAiRequest, contract: string, ext: SvcExtension): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(request)) if (!NON_OUTPUT_FIELDS.has(k) && k !== 'model' && v !== undefined) fields[k] = v;
  fields.svc = {
    contract,
    max_context_tokens: contract === 'semantic' ? (ext.max_context_tokens ?? null) : null,
    require_citations: ext.require_citations === true,
    verification: ext.verification ?? null,
    // The sources an answer was built from: a new document version must not be answered from the old one.
    source_fingerprints: ext.source_fingerprints ? [...new Set(ext.source_fingerprints)].sort() : null,
  };
  return fields;
}

/**
 * The semantic cache question of a request: the last user text in a domain
 * per route and model (or `svc.cache_domain`), with the request's source
 * fingerprints or, when none are given, one fingerprint over everything
 * else that shapes the answer (system prompt, history, sampling fields).
 */
export function semanticQueryFor(profile: ApiProfile, request: AnyAiRequest, ext: SvcExtension, route: RouteDecision, policyId: string): SemanticQuery | undefined {
  const query = profile.queryText(request);
  if (query.trim() === '') return undefined;
  const context = keyFields(request, 'semantic', ext);
  if (Array.isArray(context.messages)) context.messages = (context.messages as unknown[]).slice(0, -1);
  else delete context.prompt;
  return {
    domain: ext.cache_domain ?? `${profile.keyRoute}:${route.label}`,
    query,
    source_fingerprints: ext.source_fingerprints ?? [`ctx:${canonicalSha256(context)}`],
    policy_id: policyId,
    freshness: { max_age_seconds: ext.max_cache_age_seconds ?? DEFAULT_SEMANTIC_MAX_AGE_SECONDS },
    ...(ext.verification ? { verification: ext.verification } : {}),
  };
}
