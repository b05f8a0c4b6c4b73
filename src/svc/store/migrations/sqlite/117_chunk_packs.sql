-- Pack files (docs/chunking.md#pack-files, decision 114): chunks are appended to pack files of a few MiB;
-- this is the index from a chunk's stored form to the bytes in a pack. A row is inserted only after the
-- pack bytes it points at are durable, so a manifest committed after ingest's flush never names bytes a
-- crash can lose. Old one-file-per-chunk stores have no rows here and are read as a fallback.
CREATE TABLE chunk_packs (
  pack_id TEXT PRIMARY KEY,            -- pk_ + 32 hex
  scope TEXT NOT NULL,                 -- dedupe scope the pack belongs to (chunk-scope.ts)
  size_bytes INTEGER NOT NULL,            -- whole pack file / object, headers included
  entry_count INTEGER NOT NULL,        -- entries written (some may have lost an insert race: dead from the start)
  created_at TEXT NOT NULL
);
CREATE INDEX chunk_packs_scope_idx ON chunk_packs (scope, created_at);
CREATE TABLE chunk_index (
  scope TEXT NOT NULL,
  chunk_id TEXT NOT NULL,              -- ch_ + hex SHA-256 of the raw chunk
  codec TEXT NOT NULL,                 -- raw | zstd: each stored form has its own row
  pack_id TEXT NOT NULL,
  pack_offset INTEGER NOT NULL,           -- first byte of the stored form inside the pack
  stored_length INTEGER NOT NULL,
  created_at TEXT NOT NULL,            -- when the row was inserted: garbage collection keeps rows newer than its mark
  PRIMARY KEY (scope, chunk_id, codec)
);
CREATE INDEX chunk_index_pack_idx ON chunk_index (pack_id);
