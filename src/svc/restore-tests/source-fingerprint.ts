/**
 * Source fingerprints svc can check itself (docs/decisions/095): a cache
 * entry built from an object svc stores names it as
 * `svc-object:s3://<bucket>/<key>@sha256:<hex>`; the fingerprint holds while
 * that tenant's current object at that key has that digest. Any other
 * fingerprint is opaque to svc (it still must match on lookup) and is
 * reported as unchecked by the cache_source restore test.
 */
const SVC_OBJECT = /^svc-object:s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/(.+)@sha256:([0-9a-f]{64})$/;

export function svcObjectFingerprint(bucket: string, key: string, sha256: string): string {
  return `svc-object:s3://${bucket}/${key}@sha256:${sha256}`;
}

export function parseSvcObjectFingerprint(fp: string): { bucket: string; key: string; sha256: string } | undefined {
  const m = SVC_OBJECT.exec(fp);
  return m ? { bucket: m[1]!, key: m[2]!, sha256: m[3]! } : undefined;
}
