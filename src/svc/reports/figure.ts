/**
 * A report figure names how it was computed, so an auditor can recompute it
 * from the rows (manifests, compute manifests, ledger events) in the report's
 * window. Estimates are a different type: they carry a formula and the
 * constants used, and are labelled `estimate: true`.
 */

export type FigureSource = 'manifests' | 'ai_manifests' | 'ledger_events' | 'chunks';

export interface MeasuredFigure {
  value: number;
  unit: string;
  kind: 'measured';
  source: FigureSource;
  /** How the value was computed from the source rows (SQL-like, over the report window). */
  method: string;
  note?: string;
}

export interface EstimateConstantUse {
  value: number;
  unit: string;
  source: string;
}

export interface EstimatedFigure {
  value: number;
  unit: string;
  kind: 'estimated';
  estimate: true;
  formula: string;
  /** The constants the formula used (values from configuration, with their sources). */
  constants: Record<string, EstimateConstantUse>;
  /** The measured figures the formula consumed, by name. */
  inputs: Record<string, number>;
}

export function measured(value: number, unit: string, source: FigureSource, method: string, note?: string): MeasuredFigure {
  return note === undefined ? { value, unit, kind: 'measured', source, method } : { value, unit, kind: 'measured', source, method, note };
}

/** Rounds fractions to 6 significant digits so estimates do not pretend to a precision they lack; integers stay exact. */
export function roundEstimate(v: number): number {
  if (!Number.isFinite(v)) return 0;
  return Number.isInteger(v) ? v : Number(v.toPrecision(6));
}
