/**
 * A legal hold: set by someone allowed to publish policy, on a whole tenant,
 * an object prefix (`bucket/key-prefix`) or one manifest. While active it
 * blocks deletion (object delete, manifest tombstoning) and any lifecycle
 * removal of the data it covers; an attempt is refused, written to the
 * ledger (`legal_hold.deletion_blocked`) and raises the critical alert.
 */
import { type Static, Type } from 'typebox';

export const LEGAL_HOLD_SCOPES = ['tenant', 'prefix', 'manifest'] as const;

export const PlaceLegalHoldRequest = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    scope: Type.Union(LEGAL_HOLD_SCOPES.map((s) => Type.Literal(s))),
    /** `bucket/key-prefix` for `prefix`, a manifest id for `manifest`; absent for `tenant`. */
    target: Type.Optional(Type.String({ minLength: 1, maxLength: 1024 })),
    /** Why (a case reference); shown to operators, never payload text. */
    reason: Type.String({ minLength: 1, maxLength: 500 }),
  },
  { additionalProperties: false },
);
export type PlaceLegalHoldRequest = Static<typeof PlaceLegalHoldRequest>;

export interface LegalHold {
  id: string;
  tenant: string;
  scope: (typeof LEGAL_HOLD_SCOPES)[number];
  target: string;
  reason: string;
  placed_by: string;
  placed_at: string;
  released_by: string | null;
  released_at: string | null;
}

/** What a deletion is about: the object's namespace (`bucket/key`) and its manifest. */
export interface HeldSubject {
  tenant: string;
  namespace: string;
  manifestId: string;
}

export function holdCovers(h: LegalHold, s: HeldSubject): boolean {
  if (h.tenant !== s.tenant || h.released_at !== null) return false;
  if (h.scope === 'tenant') return true;
  if (h.scope === 'manifest') return h.target === s.manifestId;
  return s.namespace.startsWith(h.target);
}
