/**
 * Policy bundles the tests publish. Object deletes are denied by default
 * (docs/policy.md); a test that deletes publishes a bundle allowing them in
 * one bucket, keeping the exact reducers allowed.
 */

/** YAML of the `default` bundle allowing `object.delete` under `<bucket>/` (policy `pol_allow_<bucket>_delete`). */
export function deleteAllowedBundle(bucket: string, version = '2'): string {
  return `
name: default
version: "${version}"
default_effect: allow
policies:
  - id: pol_exact_reducers
    effect: allow
    match: { action: { in: [hash, content_defined_chunk, dedupe, zstd] } }
  - id: pol_allow_${bucket}_delete
    effect: allow
    match:
      action: object.delete
      namespace: { prefix: "${bucket}/" }
`;
}
