/**
 * Where one stored form of a chunk lives, relative to a store's root:
 * `<scope>/<h0h1>/<h2h3>/<sha256-hex>.<raw|zst>`. Two levels of 256 shards
 * keep filesystem directories small at millions of chunks; every backend
 * uses the same relative layout, so a filesystem chunk directory copied under
 * an S3 prefix (`aws s3 sync <chunk_dir> s3://<bucket>/<prefix>`) is a valid
 * S3 chunk store and back.
 *
 * Scope and id are checked against strict patterns before they form a path
 * or an object key, so nothing read from a manifest or an export can name
 * anything outside the store.
 */
import type { ChunkCodec } from '../chunking/chunk-codec.ts';
import { chunkDigestHex, isChunkId } from './chunk-id.ts';
import type { ChunkScope } from './chunk-scope.ts';
import { CHUNK_SCOPE_PATTERN } from './chunk-scope.ts';

/** File-name extension of each stored form. */
export const CHUNK_FILE_EXTENSION: Readonly<Record<ChunkCodec, string>> = { raw: 'raw', zstd: 'zst' };

/**
 * The path segments `[scope, h0h1, h2h3, file]` of one stored form.
 * @throws TypeError when the scope or the id is malformed
 */
export function chunkKeySegments(scope: ChunkScope, id: string, codec: ChunkCodec): [string, string, string, string] {
  if (!CHUNK_SCOPE_PATTERN.test(scope)) throw new TypeError(`invalid chunk scope ${JSON.stringify(scope)}`);
  if (!isChunkId(id)) throw new TypeError(`invalid chunk id ${JSON.stringify(id)}`);
  const hex = chunkDigestHex(id);
  return [scope, hex.slice(0, 2), hex.slice(2, 4), `${hex}.${CHUNK_FILE_EXTENSION[codec]}`];
}

/** One stored form of the old layout as a listing finds it. */
export interface ListedChunk {
  scope: ChunkScope;
  id: string;
  codec: ChunkCodec;
  size: number;
}

const LISTED_KEY = /^(global|[to]-[0-9a-f]{32})\/([0-9a-f]{2})\/([0-9a-f]{2})\/([0-9a-f]{64})\.(raw|zst)$/;

/**
 * The stored form a relative key names (`<scope>/<h0h1>/<h2h3>/<hex>.<ext>`),
 * or undefined for anything else (packs, temporary files, shards that do not
 * match the digest).
 */
export function parseChunkKey(relative: string): { scope: ChunkScope; id: string; codec: ChunkCodec } | undefined {
  const m = LISTED_KEY.exec(relative);
  if (!m || m[4]!.slice(0, 2) !== m[2] || m[4]!.slice(2, 4) !== m[3]) return undefined;
  return { scope: m[1] as ChunkScope, id: `ch_${m[4]}`, codec: m[5] === 'zst' ? 'zstd' : 'raw' };
}
