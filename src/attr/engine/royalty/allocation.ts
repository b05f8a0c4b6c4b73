/**
 * Royalty weights and candidate payouts. Each claim unit of the answer
 * carries an equal share of the gross revenue. A supported claim's share
 * goes to the rights holder of the source it is attributed to; everything
 * else goes to escrow: shares of claims that are not supported, and shares
 * of supported claims whose source has no known, royalty-eligible rights
 * holder. Weights (6 digits) and amounts (revenue scale) are both split by
 * largest remainder, so each sums exactly to 1 and to the total.
 *
 * The same function runs in the engine and in the verifier, which recomputes
 * the allocation from the footer's rows and compares.
 */
import { apportion } from './largest-remainder.ts';

export const WEIGHT_SCALE = 6;
export const ESCROW_LABEL = 'escrow';

export interface AllocationParty {
  label: string;
  /** Source rows whose rights holder is unknown or not royalty-eligible are not payable. */
  payable: boolean;
}

export interface AllocationClaim {
  supported: boolean;
  sourceLabel: string | null;
}

export interface AllocationLine {
  label: string;
  /** Number of claim units whose share this line carries. */
  mass: number;
  weight: string;
  amount: string;
}

export interface Allocation {
  lines: AllocationLine[];
  escrow: AllocationLine;
}

export function allocate(parties: readonly AllocationParty[], claims: readonly AllocationClaim[], total: string, scale: number): Allocation {
  const payable = new Map(parties.map((p) => [p.label, p.payable]));
  const masses = parties.map(() => 0);
  let escrowMass = 0;
  for (const claim of claims) {
    const idx = claim.supported && claim.sourceLabel !== null ? parties.findIndex((p) => p.label === claim.sourceLabel) : -1;
    if (idx >= 0 && payable.get(claim.sourceLabel!) === true) masses[idx]!++;
    else escrowMass++;
  }
  const allMasses = [...masses, escrowMass];
  // With no claim units at all, the whole amount is escrowed.
  if (claims.length === 0) allMasses[allMasses.length - 1] = 1;
  const weights = apportion('1', allMasses, WEIGHT_SCALE);
  const amounts = apportion(total, allMasses, scale);
  const lines = parties.map((p, i) => ({ label: p.label, mass: masses[i]!, weight: weights[i]!, amount: amounts[i]! }));
  const last = allMasses.length - 1;
  return { lines, escrow: { label: ESCROW_LABEL, mass: escrowMass, weight: weights[last]!, amount: amounts[last]! } };
}
