/**
 * Picks the upstream for a request: the named model, or for `auto` the
 * first configured model of the class the classifier chose (falling back to
 * the other class when one is not configured). Also resolves the fallback
 * route used when a required verifier fails.
 */
import { SvcError } from '../../errors.ts';
import type { Capability, ModelCatalog, ModelRoute } from '../providers/model-catalog.ts';
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
}

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

export function selectRoute(catalog: ModelCatalog, requestedModel: string, capability: Capability, lastUserText: string, toolsOffered: boolean): RouteDecision {
  if (catalog.isEmpty) throw noProviderError();
  if (requestedModel === AUTO_MODEL) {
    const classification = classifyTask(lastUserText, toolsOffered);
    const other = classification.size_class === 'small' ? 'large' : 'small';
    const route = catalog.firstOfClass(classification.size_class, capability) ?? catalog.firstOfClass(other, capability);
    if (!route) throw new SvcError('model_route_failed', `no configured model serves ${capability}`, { retryable: false, details: { param: 'model' } });
    return decision(route, requestedModel, 'large', classification);
  }
  const route = catalog.find(requestedModel);
  if (!route) {
    throw new SvcError('model_route_failed', `the model '${requestedModel}' is not configured (GET /v1/models lists the models)`, { retryable: false, details: { param: 'model' } });
  }
  if (!serves(route.model, capability)) {
    throw new SvcError('model_route_failed', `the model '${requestedModel}' does not serve ${capability}`, { retryable: false, details: { param: 'model' } });
  }
  return decision(route, requestedModel, route.model.size_class);
}

/** The fallback route: the request's `fallback_model`, else the primary provider's configured one; undefined when neither exists. */
export function selectFallback(catalog: ModelCatalog, primary: RouteDecision, requestFallback: string | undefined, capability: Capability): RouteDecision | undefined {
  const id = requestFallback ?? primary.provider.fallback_model;
  if (id === undefined) return undefined;
  const route = catalog.find(id);
  if (!route || !serves(route.model, capability)) {
    throw new SvcError('model_route_failed', `the fallback model '${id}' is not configured for ${capability}`, { retryable: false, details: { param: 'svc.fallback_model' } });
  }
  return decision(route, id, route.model.size_class);
}
