/**
 * The platform routes' domain: the supported targets and the one in use,
 * readiness per target (failing closed: the report is ready only when every
 * required check of the target in use passes), and the capability matrix.
 */
import { requirePermission } from '../auth/principal.ts';
import type { SvcConfig } from '../config/schema.ts';
import type { RequestContext } from '../context.ts';
import { capabilityMatrix } from './capability-matrix.ts';
import type { PlatformCheck } from './platform-check.ts';
import { TARGETS, TARGET_IDS, type TargetId, inContainer, targetInUse } from './targets.ts';
import { validateTarget } from './validate-target.ts';

export interface TargetReadiness {
  target: TargetId;
  in_use: boolean;
  ready: boolean;
  checks: PlatformCheck[];
}

export interface PlatformReadiness {
  ready: boolean;
  in_use: TargetId;
  targets: TargetReadiness[];
}

export interface PlatformServiceDeps {
  config: Readonly<SvcConfig>;
  env: Record<string, string | undefined>;
  pgSchema?: string | undefined;
}

export class PlatformService {
  readonly #d: PlatformServiceDeps;
  constructor(deps: PlatformServiceDeps) {
    this.#d = deps;
  }

  list(ctx: RequestContext) {
    requirePermission(ctx.principal, 'metrics:read');
    const inUse = targetInUse(this.#d.config);
    return { in_use: inUse, in_container: inContainer(this.#d.env), targets: TARGETS.map((t) => ({ ...t, in_use: t.id === inUse })) };
  }

  matrix(ctx: RequestContext) {
    requirePermission(ctx.principal, 'metrics:read');
    return { in_use: targetInUse(this.#d.config), ...capabilityMatrix() };
  }

  /**
   * The target in use is probed for real. Other targets are validated
   * against the same configuration, so they fail with the keys they would
   * need (no network call is made for an unconfigured backend).
   */
  async readiness(ctx: RequestContext): Promise<PlatformReadiness> {
    requirePermission(ctx.principal, 'metrics:read');
    const inUse = targetInUse(this.#d.config);
    const targets = await Promise.all(
      TARGET_IDS.map(async (t): Promise<TargetReadiness> => {
        const v = await validateTarget(t, this.#d.config, { env: this.#d.env, pgSchema: this.#d.pgSchema });
        return { target: t, in_use: t === inUse, ready: v.ok, checks: v.checks };
      }),
    );
    const current = targets.find((t) => t.in_use);
    return { ready: current?.ready === true, in_use: inUse, targets };
  }
}
