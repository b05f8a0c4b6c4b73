-- Recompression (docs/objects.md#recompression, decision 207): garbage collection rewrites packs whose chunks were
-- compressed alone into dense frames. A pack written by it, or one it tried and found not worth rewriting, is stamped
-- here, so each pack's chunks are densified at most once rather than tried again by every run. NULL: never tried.
ALTER TABLE chunk_packs ADD COLUMN recompressed_at TEXT;
