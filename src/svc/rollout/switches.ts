/**
 * Admin rollback switches: one state object, persisted, read on the hot path
 * without I/O, changed one switch at a time (each change is audited).
 */
import Type, { type Static } from 'typebox';

export interface Switches {
  /** Every work unit runs under `exact_bytes`, whatever it asked for. */
  force_exact_contract: boolean;
  /** No reducer runs; requests pass through in observe mode ("bypass the gateway"). */
  bypass_optimisation: boolean;
  disabled_reducers: string[];
  disabled_plugins: string[];
  /** `model: auto` routes to the requested/default model instead of choosing one. */
  model_router_disabled: boolean;
  /** All AI calls go to the configured baseline provider. */
  route_to_baseline_provider: boolean;
  /** The bundle put in force by a switch (null: the configured bundle). */
  policy_bundle: { name: string; version: string | null } | null;
  /** When the semantic cache was last cleared by the switch. */
  semantic_cache_cleared_at: string | null;
  updated_at: string | null;
  updated_by: string | null;
}

export const DEFAULT_SWITCHES: Readonly<Switches> = Object.freeze({
  force_exact_contract: false,
  bypass_optimisation: false,
  disabled_reducers: [],
  disabled_plugins: [],
  model_router_disabled: false,
  route_to_baseline_provider: false,
  policy_bundle: null,
  semantic_cache_cleared_at: null,
  updated_at: null,
  updated_by: null,
});

const Name = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_.:-]+$' });

/** One change, as `POST /v1/admin/switches` accepts it. */
export const SwitchChange = Type.Union([
  Type.Object({ switch: Type.Literal('force_exact_contract'), enabled: Type.Boolean() }, { additionalProperties: false }),
  Type.Object({ switch: Type.Literal('bypass_optimisation'), enabled: Type.Boolean() }, { additionalProperties: false }),
  Type.Object({ switch: Type.Literal('disable_reducer'), name: Name, disabled: Type.Boolean() }, { additionalProperties: false }),
  Type.Object({ switch: Type.Literal('disable_plugin'), name: Name, disabled: Type.Boolean() }, { additionalProperties: false }),
  Type.Object({ switch: Type.Literal('disable_model_router'), enabled: Type.Boolean() }, { additionalProperties: false }),
  Type.Object({ switch: Type.Literal('route_to_baseline_provider'), enabled: Type.Boolean() }, { additionalProperties: false }),
  Type.Object(
    { switch: Type.Literal('policy_bundle'), name: Type.Union([Type.String({ pattern: '^[a-z0-9][a-z0-9_-]{0,62}$' }), Type.Null()]), version: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) },
    { additionalProperties: false },
  ),
  Type.Object({ switch: Type.Literal('clear_semantic_cache'), tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })) }, { additionalProperties: false }),
]);
export type SwitchChange = Static<typeof SwitchChange>;
export type SwitchName = SwitchChange['switch'];

/** Persistence of the switch state (SQL in src/svc/store/repositories/switches.ts). */
export interface SwitchStore {
  load(): Promise<Switches | undefined>;
  save(switches: Switches): Promise<void>;
}

function toggleIn(list: readonly string[], name: string, on: boolean): string[] {
  const set = new Set(list);
  if (on) set.add(name);
  else set.delete(name);
  return [...set].sort();
}

/** The state after a change (pure; side effects such as clearing caches are the switchboard's). */
export function applySwitchChange(current: Switches, change: SwitchChange, actor: string, at: string): Switches {
  const next: Switches = { ...current, disabled_reducers: [...current.disabled_reducers], disabled_plugins: [...current.disabled_plugins], updated_at: at, updated_by: actor };
  switch (change.switch) {
    case 'force_exact_contract':
      next.force_exact_contract = change.enabled;
      break;
    case 'bypass_optimisation':
      next.bypass_optimisation = change.enabled;
      break;
    case 'disable_reducer':
      next.disabled_reducers = toggleIn(current.disabled_reducers, change.name, change.disabled);
      break;
    case 'disable_plugin':
      next.disabled_plugins = toggleIn(current.disabled_plugins, change.name, change.disabled);
      break;
    case 'disable_model_router':
      next.model_router_disabled = change.enabled;
      break;
    case 'route_to_baseline_provider':
      next.route_to_baseline_provider = change.enabled;
      break;
    case 'policy_bundle':
      next.policy_bundle = change.name === null ? null : { name: change.name, version: change.version ?? null };
      break;
    case 'clear_semantic_cache':
      next.semantic_cache_cleared_at = at;
      break;
  }
  return next;
}
