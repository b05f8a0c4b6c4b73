-- Frames (docs/chunking.md#frames, decision 157): consecutive new compressible chunks are compressed together
-- in one frame inside a pack. A framed chunk's row points at the frame's payload (pack_offset, frame_length)
-- and names its place in the decoded frame (frame_skip, raw_length); stored_length is its share of the frame's
-- payload, so sums over rows (garbage collection's live bytes) stay meaningful. NULL for unframed rows.
ALTER TABLE chunk_index ADD COLUMN frame_length INTEGER;
ALTER TABLE chunk_index ADD COLUMN frame_skip INTEGER;
ALTER TABLE chunk_index ADD COLUMN raw_length INTEGER;
