/**
 * The bundle in force when none has been published. Conservative on
 * purpose: exact reducers and routing are allowed, high-risk semantic
 * transforms need an approval, and object delete stays denied (the built-in
 * guarantee; this bundle has no policy allowing it). docs/policy.md shows it.
 */
import { makeBundle, type PolicyBundle } from './bundle.ts';
import type { BundleDoc } from './policy-schema.ts';

/** Fixed id so plans and ledger events made under the built-in bundle name one stable id across restarts. */
export const BUILTIN_BUNDLE_ID = 'pb_00000000000000000000000000';
export const BUILTIN_BUNDLE_VERSION = '0-builtin';

export const BUILTIN_BUNDLE_DOC: BundleDoc = {
  name: 'default',
  version: BUILTIN_BUNDLE_VERSION,
  description: 'Built-in default bundle, used until a bundle is published.',
  default_effect: 'allow',
  policies: [
    {
      id: 'pol_builtin_exact_reducers',
      description: 'exact reducers keep bytes identical and are always allowed',
      priority: 10,
      effect: 'allow',
      match: { action: { in: ['hash', 'content_defined_chunk', 'dedupe', 'zstd', 'gzip', 'exact_cache'] } },
    },
    {
      id: 'pol_builtin_semantic_high_risk_approval',
      description: 'high-risk semantic transforms need a signed approval',
      effect: 'allow',
      match: { action_class: 'semantic', risk: 'high' },
      obligations: ['requires_approval'],
    },
    {
      id: 'pol_builtin_unknown_risk_semantic_observe',
      description: 'semantic transforms without a risk rating run in observe mode only',
      match: { action_class: 'semantic', risk: { exists: false } },
      obligations: ['observe_only'],
    },
  ],
};

/** Builds the built-in bundle under `name` (the configured active bundle name). */
export function builtinBundle(name = 'default'): PolicyBundle {
  return makeBundle({ ...BUILTIN_BUNDLE_DOC, name }, BUILTIN_BUNDLE_ID);
}
