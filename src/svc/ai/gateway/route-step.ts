/**
 * Routing: the model the request goes to (the `auto` classifier, the
 * routing rollback switches, rollout pass-through) and its fallback. An
 * unusable fallback the request named fails only a request that needs it
 * (issue 10, defect 1), so its error is kept, not thrown.
 */
import type { RolloutDecision } from '../../rollout/rollout-decision.ts';
import { SvcError } from '../../errors.ts';
import { type RouteDecision, selectFallback, selectRoute } from '../routing/route-selector.ts';
import type { SvcExtension } from '../schemas/svc-extension.ts';
import type { AnyAiRequest, ApiProfile } from './api-profiles.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { RequestRun } from './request-run.ts';

export interface RoutedRequest {
  route: RouteDecision;
  fallback: RouteDecision | undefined;
  /** Why the fallback the request named cannot be used; raised only if a fallback is needed. */
  fallbackError: SvcError | undefined;
}

export function routeRequest(d: GatewayDeps, profile: ApiProfile, request: AnyAiRequest, ext: SvcExtension, run: RequestRun, rollout: RolloutDecision): RoutedRequest {
  const switches = d.routingSwitches();
  // Tier `none` also takes the `auto` router out.
  const routing = rollout.reducers === 'none' ? { ...switches, rolloutPassThrough: true } : switches;
  // svc.classify: the request's task class (the `auto` classifier) and the model it routes to.
  const route = d.spans.runSync('svc.classify', { work_unit_id: run.work_unit_id }, () => selectRoute(d.catalog, request.model, profile.capability, profile.queryText(request), profile.toolsOffered(request), routing), (r) => ({ model_route: r.label }));
  run.route = route;
  let fallback: RouteDecision | undefined;
  let fallbackError: SvcError | undefined;
  try {
    fallback = selectFallback(d.catalog, route, ext.fallback_model, profile.capability, routing);
  } catch (err) {
    fallbackError = SvcError.from(err);
  }
  return { route, fallback, fallbackError };
}
