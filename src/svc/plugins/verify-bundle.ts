/**
 * Checks a plugin bundle against the trust list. Two kinds of answer:
 * - a malformed bundle (not JSON, schema violations, inconsistent fields)
 *   throws `invalid_request` — nothing was signed or verified, nothing is audited;
 * - a well-formed bundle returns `{ ok: true }` or the signature failure
 *   (unsigned, unknown publisher, bad signature, files not matching the signed
 *   digests). The caller audits every failure and refuses the bundle.
 *
 * The same function runs at install, at enable and at every load, on the
 * bytes kept in the database: a row there is never trusted by itself.
 */
import { createHash, verify } from 'node:crypto';
import { SvcError } from '../errors.ts';
import { validate } from '../validation.ts';
import { BUNDLE_PATH_PATTERN, type PluginBundle, PluginManifest } from './plugin-manifest.ts';
import type { TrustList } from './trust-list.ts';

export type SignatureFailure = 'unsigned' | 'unknown_publisher' | 'publisher_mismatch' | 'bad_signature' | 'file_set_mismatch' | 'file_digest_mismatch';

export interface CheckedBundle {
  manifest: PluginManifest;
  /** SHA-256 of the manifest's bytes: names this exact bundle (the manifest pins every file). */
  bundleSha256: string;
  files: ReadonlyMap<string, Buffer>;
  verdict: { ok: true } | { ok: false; failure: SignatureFailure; message: string };
}

const sha256 = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

/** Parses and validates the manifest text; throws `invalid_request` when it is not a valid v1 manifest. */
export function parseManifest(manifestJson: string): PluginManifest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(manifestJson);
  } catch {
    throw new SvcError('invalid_request', 'invalid plugin manifest: manifest_json is not JSON');
  }
  const manifest = validate(PluginManifest, parsed, 'invalid_request', 'plugin manifest');
  const problems: string[] = [];
  if (manifest.id.split('.')[0] !== manifest.publisher) problems.push(`/id: must start with the publisher ("${manifest.publisher}.")`);
  if (!Object.hasOwn(manifest.files, manifest.entry)) problems.push('/entry: must be one of the files');
  if (manifest.kind === 'transform' && manifest.semantic === undefined) problems.push('/semantic: required for a transform (true when its output is not byte-identical to its input)');
  if (manifest.kind !== 'transform' && manifest.semantic !== undefined) problems.push('/semantic: only a transform declares it');
  if (manifest.kind === 'adapter' && manifest.adapter === undefined) problems.push('/adapter: required for an adapter plugin');
  if (manifest.kind !== 'adapter' && manifest.adapter !== undefined) problems.push('/adapter: only an adapter plugin declares it');
  if (problems.length > 0) throw new SvcError('invalid_request', `invalid plugin manifest: ${problems.join('; ')}`, { details: { problems } });
  return manifest;
}

const BUNDLE_PATH = new RegExp(BUNDLE_PATH_PATTERN);

export function checkBundle(bundle: PluginBundle, trust: TrustList): CheckedBundle {
  const manifest = parseManifest(bundle.manifest_json);
  const badPaths = [...Object.keys(bundle.files), ...Object.keys(manifest.files)].filter((p) => !BUNDLE_PATH.test(p) || p.length > 256);
  if (badPaths.length > 0) {
    throw new SvcError('invalid_request', `invalid plugin bundle: file paths must be relative, without . or .. segments: ${badPaths.map((p) => JSON.stringify(p.slice(0, 80))).join(', ')}`);
  }
  const files = new Map<string, Buffer>();
  for (const [p, b64] of Object.entries(bundle.files)) files.set(p, Buffer.from(b64, 'base64'));
  const base = { manifest, bundleSha256: sha256(bundle.manifest_json), files };
  const fail = (failure: SignatureFailure, message: string): CheckedBundle => ({ ...base, verdict: { ok: false, failure, message } });

  const sig = bundle.signature;
  if (!sig) return fail('unsigned', 'the bundle carries no signature');
  const key = trust.get(manifest.publisher);
  if (!key) return fail('unknown_publisher', `publisher ${manifest.publisher} is not in plugins.trusted_publishers`);
  if (sig.publisher !== manifest.publisher) return fail('publisher_mismatch', `signed by ${sig.publisher}, but the manifest names publisher ${manifest.publisher}`);
  const value = Buffer.from(sig.value, 'base64');
  if (value.length !== 64 || !verify(null, Buffer.from(bundle.manifest_json, 'utf8'), key, value)) {
    return fail('bad_signature', `the signature does not verify against ${manifest.publisher}'s key`);
  }
  const declared = Object.keys(manifest.files).sort();
  const present = [...files.keys()].sort();
  if (declared.length !== present.length || declared.some((p, i) => p !== present[i])) {
    return fail('file_set_mismatch', 'the bundle does not hold exactly the files its manifest lists');
  }
  for (const [p, digest] of Object.entries(manifest.files)) {
    if (sha256(files.get(p) as Buffer) !== digest) return fail('file_digest_mismatch', `file ${p} does not match its signed digest`);
  }
  return { ...base, verdict: { ok: true } };
}
