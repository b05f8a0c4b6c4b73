/**
 * Picks the upstream for a request: the named model, or for `auto` the
 * first configured model of the class the classifier chose (falling back to
 * the other class when one is not configured). Also resolves the fallback
 * route used when a required verifier fails.
 *
 * Two rollback switches (src/svc/rollout, read per request) narrow the
 * choice:
 * - `model_router_disabled`: `auto` is not classified; it goes to the
 *   model a request without the router would use — the first large model
 *   (the baseline of "large-model calls avoided"), else the first model
 *   serving the API;
 * - `route_to_baseline_provider`: every call goes to the baseline provider
 *   (the first configured). A model of another provider is replaced by the
 *   baseline provider's first model of the same size class (else its first
 *   model serving the API); fallbacks stay on the baseline provider too.
 *
 * The rollout can also take the router out: under reducer tier `none`
 * (`bypass_optimisation`, or a canary stage that passes requests through)
 * `auto` is routed as with the router disabled, recorded as
 * `rollout_pass_through`.
 */
import { SvcError } from '../../errors.ts';
import type { Capability, ModelCatalog, ModelRoute } from '../providers/model-catalog.ts';
import type { ProviderConfig } from '../providers/provider-config.ts';
import { serves } from '../providers/model-catalog.ts';
import { type TaskClassification, classifyTask } from './task-classifier.ts';

export const AUTO_MODEL = 'auto';

export interface RouteDecision extends ModelRoute {
  /** What the client asked for (`auto` or a model id). */
  requested_model: string;
  /** `<provider>/<model>`: what headers, plans and manifests show. */
  label: string;
  /** Present when the model was chosen by `auto`. */
  classification?: TaskClassification;
  /** The size class a request of this kind would use without the router (auto → large): the baseline for "large-model calls avoided". */
  baseline_size_class: 'small' | 'large';
  /** Rollback switches (or the rollout's pass-through) that changed this route, for the plan and the manifest. */
  switched_by?: Array<'model_router_disabled' | 'route_to_baseline_provider' | 'rollout_pass_through'>;
}

/** The rollback switches that affect routing, as the gateway reads them for one request. */
export interface RoutingSwitches {
  modelRouterDisabled: boolean;
  baselineProviderOnly: boolean;
  /** The rollout passes this request through (reducer tier `none`): `auto` is not classified. */
  rolloutPassThrough?: boolean;
}

export const NO_ROUTING_SWITCHES: Readonly<RoutingSwitches> = Object.freeze({ modelRouterDisabled: false, baselineProviderOnly: false, rolloutPassThrough: false });

export function noProviderError(): SvcError {
  return new SvcError('model_route_failed', 'no AI provider is configured: set SVC_PROVIDERS_JSON or the ai.providers section of the config file (see docs/ai-gateway.md)', {
    retryable: false,
    details: { param: 'model' },
  });
}

function decision(route: ModelRoute, requested: string, baseline: 'small' | 'large', classification?: TaskClassification): RouteDecision {
  const d: RouteDecision = { ...route, requested_model: requested, label: `${route.provider.name}/${route.model.id}`, baseline_size_class: baseline };
  if (classification) d.classification = classification;
  return d;
}

function noModelFor(capability: Capability, where: string): SvcError {
  return new SvcError('model_route_failed', `no configured model${where} serves ${capability}`, { retryable: false, details: { param: 'model' } });
}

/** First model of `preferred` class, else of the other class, serving `capability` (on one provider when given). */
function firstPreferring(catalog: ModelCatalog, preferred: 'small' | 'large', capability: Capability, provider?: ProviderConfig): ModelRoute | undefined {
  return catalog.firstOfClass(preferred, capability, provider) ?? catalog.firstOfClass(preferred === 'small' ? 'large' : 'small', capability, provider);
}

/** The baseline provider's stand-in for a route on another provider (same size class first). */
function onBaseline(catalog: ModelCatalog, route: ModelRoute, capability: Capability): ModelRoute {
  const baseline = catalog.baselineProvider!;
  if (route.provider === baseline) return route;
  const replacement = firstPreferring(catalog, route.model.size_class, capability, baseline);
  if (!replacement) throw noModelFor(capability, ` of the baseline provider '${baseline.name}'`);
  return replacement;
}

export function selectRoute(
  catalog: ModelCatalog,
  requestedModel: string,
  capability: Capability,
  lastUserText: string,
  toolsOffered: boolean,
  switches: Readonly<RoutingSwitches> = NO_ROUTING_SWITCHES,
): RouteDecision {
  if (catalog.isEmpty) throw noProviderError();
  const switchedBy: NonNullable<RouteDecision['switched_by']> = [];
  let chosen: RouteDecision;
  if (requestedModel === AUTO_MODEL) {
    let route: ModelRoute | undefined;
    let classification: TaskClassification | undefined;
    if (switches.modelRouterDisabled || switches.rolloutPassThrough === true) {
      // Without the router, `auto` is what it replaces: the large model.
      route = firstPreferring(catalog, 'large', capability);
      switchedBy.push(switches.modelRouterDisabled ? 'model_router_disabled' : 'rollout_pass_through');
    } else {
      classification = classifyTask(lastUserText, toolsOffered);
      route = firstPreferring(catalog, classification.size_class, capability);
    }
    if (!route) throw noModelFor(capability, '');
    chosen = decision(route, requestedModel, 'large', classification);
  } else {
    const route = catalog.find(requestedModel);
    if (!route) {
      throw new SvcError('model_route_failed', `the model '${requestedModel}' is not configured (GET /v1/models lists the models)`, { retryable: false, details: { param: 'model' } });
    }
    if (!serves(route.model, capability)) {
      throw new SvcError('model_route_failed', `the model '${requestedModel}' does not serve ${capability}`, { retryable: false, details: { param: 'model' } });
    }
    chosen = decision(route, requestedModel, route.model.size_class);
  }
  if (switches.baselineProviderOnly) {
    const moved = onBaseline(catalog, chosen, capability);
    if (moved !== chosen) chosen = decision(moved, requestedModel, chosen.baseline_size_class, chosen.classification);
    switchedBy.push('route_to_baseline_provider');
  }
  if (switchedBy.length > 0) chosen.switched_by = switchedBy;
  return chosen;
}

/**
 * The fallback route: the request's `fallback_model`, else the primary
 * provider's configured one; undefined when neither exists. Under
 * `route_to_baseline_provider` only a baseline-provider model can be the
 * fallback (the request's when it is one, else the baseline provider's).
 *
 * A provider's `fallback_model` is a default for the APIs its model serves:
 * a chat fallback does not make embeddings fail, it simply does not apply
 * to them (undefined). Only a fallback the request itself names must serve
 * the API; the gateway resolves that one lazily, when a fallback is needed.
 */
export function selectFallback(
  catalog: ModelCatalog,
  primary: RouteDecision,
  requestFallback: string | undefined,
  capability: Capability,
  switches: Readonly<RoutingSwitches> = NO_ROUTING_SWITCHES,
): RouteDecision | undefined {
  let id = requestFallback ?? primary.provider.fallback_model;
  if (switches.baselineProviderOnly) {
    const baseline = catalog.baselineProvider;
    const requested = requestFallback === undefined ? undefined : catalog.find(requestFallback);
    id = requested && requested.provider === baseline ? requestFallback : baseline?.fallback_model;
  }
  if (id === undefined) return undefined;
  const route = catalog.find(id);
  const named = requestFallback !== undefined && id === requestFallback;
  if (!named && (!route || !serves(route.model, capability))) return undefined;
  if (!route || !serves(route.model, capability)) {
    throw new SvcError('model_route_failed', `the fallback model '${id}' is not configured for ${capability}`, { retryable: false, details: { param: 'svc.fallback_model' } });
  }
  return decision(route, id, route.model.size_class);
}
