/**
 * The one entry point that runs a verifier specification against a value.
 * The server always runs the check itself; nothing a client sends can mark a
 * value as verified.
 */
import { chatCompletionVerifier } from './chat-completion-verifier.ts';
import { embeddingShapeVerifier } from './embedding-shape-verifier.ts';
import { jsonShapeVerifier } from './json-shape-verifier.ts';
import { nonEmptyTextVerifier } from './non-empty-text-verifier.ts';
import { sha256Verifier } from './sha256-verifier.ts';
import type { VerificationSpec } from './verification-spec.ts';
import { type Verifier, type VerifierOutcome, verifierLabel } from './verifier.ts';

const VERIFIERS = {
  chat_completion: chatCompletionVerifier,
  embedding_shape: embeddingShapeVerifier,
  json_shape: jsonShapeVerifier,
  non_empty_text: nonEmptyTextVerifier,
  sha256: sha256Verifier,
} as const satisfies { [K in VerificationSpec['type']]: Verifier<Extract<VerificationSpec, { type: K }>> };

/** `name@version` of the verifier a specification selects. */
export function verifierNameOf(spec: VerificationSpec): string {
  return verifierLabel(VERIFIERS[spec.type]);
}

/** Runs the verifier `spec` selects; never throws for a bad value (that is a failed check). */
export function runVerifier(spec: VerificationSpec, value: unknown): VerifierOutcome {
  const verifier = VERIFIERS[spec.type] as Verifier;
  const label = verifierLabel(verifier);
  let result: { passed: true } | { passed: false; reason: string };
  try {
    result = verifier.check(value, spec);
  } catch {
    result = { passed: false, reason: 'verifier could not read the value' };
  }
  return result.passed ? { verifier: label, passed: true } : { verifier: label, passed: false, reason: result.reason };
}
