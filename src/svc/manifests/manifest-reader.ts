/**
 * Reads a stored or exported byte-object manifest of any schema version this
 * build supports and returns it in the current shape (Versioning rule 3:
 * manifest reader support for old versions; docs/versioning.md).
 *
 * Each version that changes the shape adds one upgrade step `vN → vN+1`
 * to {@link UPGRADES}; a document is upgraded step by step. Today only
 * version 1 exists, so the table is empty and reading is validation. A
 * version newer than this build, or one that fails validation, is a
 * `ManifestReadError` naming what is wrong — never a silent partial read.
 */
import { isChunkId } from '../chunk-store/chunk-id.ts';
import { CHUNK_CODECS } from '../chunking/chunk-codec.ts';
import { type ByteManifest, MANIFEST_SCHEMA_VERSION } from './manifest.ts';

/** The oldest schema version the reader still reads. */
export const OLDEST_READABLE_MANIFEST_VERSION = 1;

type Upgrade = (doc: Record<string, unknown>) => Record<string, unknown>;
/** `UPGRADES[n]` turns a version-n document into version n+1. */
const UPGRADES: Readonly<Record<number, Upgrade>> = {};

export class ManifestReadError extends Error {
  readonly reason: string;
  constructor(reason: string, message: string) {
    super(message);
    this.reason = reason;
  }
}

const SHA256 = /^[0-9a-f]{64}$/;

export function readManifestDocument(input: unknown): ByteManifest {
  if (!input || typeof input !== 'object' || Array.isArray(input)) throw new ManifestReadError('not_an_object', 'a manifest must be a JSON object');
  let doc = input as Record<string, unknown>;
  const version = doc['schema_version'];
  if (typeof version !== 'number' || !Number.isInteger(version)) throw new ManifestReadError('no_schema_version', 'the manifest has no integer schema_version');
  if (version > MANIFEST_SCHEMA_VERSION) throw new ManifestReadError('newer_schema_version', `schema_version ${version} is newer than this build reads (${MANIFEST_SCHEMA_VERSION})`);
  if (version < OLDEST_READABLE_MANIFEST_VERSION) throw new ManifestReadError('unsupported_schema_version', `schema_version ${version} is older than the oldest this build reads (${OLDEST_READABLE_MANIFEST_VERSION})`);
  for (let v = version; v < MANIFEST_SCHEMA_VERSION; v++) {
    const step = UPGRADES[v];
    if (!step) throw new ManifestReadError('no_upgrade_path', `no upgrade from schema_version ${v}`);
    doc = { ...step(doc), schema_version: v + 1 };
  }
  const problems: string[] = [];
  const str = (k: string) => typeof doc[k] === 'string' && (doc[k] as string).length > 0;
  for (const k of ['manifest_id', 'tenant', 'logical_ref', 'chunk_scope', 'work_unit_id']) if (!str(k)) problems.push(`${k} missing`);
  if (doc['kind'] !== 'byte_object') problems.push('kind is not byte_object');
  if (typeof doc['sha256'] !== 'string' || !SHA256.test(doc['sha256'])) problems.push('sha256 is not a SHA-256 hex digest');
  if (doc['chunk_list_sha256'] !== undefined && (typeof doc['chunk_list_sha256'] !== 'string' || !SHA256.test(doc['chunk_list_sha256']))) problems.push('chunk_list_sha256 is not a SHA-256 hex digest');
  if (typeof doc['bytes_in'] !== 'number' || (doc['bytes_in'] as number) < 0) problems.push('bytes_in missing');
  const chunks = doc['chunks'];
  if (!Array.isArray(chunks)) problems.push('chunks missing');
  else {
    let offset = 0;
    for (const [i, c] of (chunks as Array<Record<string, unknown>>).entries()) {
      if (!c || typeof c !== 'object' || !isChunkId(String(c['id'])) || !CHUNK_CODECS.includes(c['codec'] as never) || typeof c['length'] !== 'number') {
        problems.push(`chunk ${i} is malformed`);
        break;
      }
      offset += c['length'] as number;
    }
    if (problems.length === 0 && offset !== doc['bytes_in']) problems.push(`chunk lengths add up to ${offset}, not bytes_in ${String(doc['bytes_in'])}`);
  }
  if (problems.length > 0) throw new ManifestReadError('malformed', `unreadable manifest: ${problems.join('; ')}`);
  return doc as unknown as ByteManifest;
}
