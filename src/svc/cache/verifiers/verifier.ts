/**
 * What every verifier is: a named, versioned, pure check of a value against a
 * specification. Versions are part of the name (`json_shape@1`) and are
 * recorded in manifests and response metadata, so a change in what a
 * verifier accepts is visible as a new version, never silently.
 */
import type { VerificationSpec } from './verification-spec.ts';

export interface VerifierOutcome {
  /** `name@version`, e.g. `chat_completion@1`. */
  verifier: string;
  passed: boolean;
  /** Why it failed (safe to show: never contains value text). */
  reason?: string;
}

export interface Verifier<S extends VerificationSpec = VerificationSpec> {
  readonly name: S['type'];
  readonly version: number;
  check(value: unknown, spec: S): { passed: true } | { passed: false; reason: string };
}

export function verifierLabel(v: Pick<Verifier, 'name' | 'version'>): string {
  return `${v.name}@${v.version}`;
}
