/**
 * Streams rehydrated bytes as gRPC messages: first a `ByteStreamInfo`
 * (size, length, range, digest), then the bytes in order, split so no
 * message exceeds {@link MAX_DATA_MESSAGE_BYTES} (clients accept 4 MiB
 * messages by default). Rehydration verifies while streaming; a failure
 * surfaces as a throw from the iterator, which the stream frame turns into an
 * error status. A client that goes away stops the read (the iterator is
 * returned, releasing its chunk reads).
 */
import type { ByteStreamInfo } from './generated/svc/v1/ByteStreamInfo.ts';
import type { Rehydration } from '../exact-bytes/rehydrate.ts';
import type { MessageSink } from './rpc-handlers.ts';

export const MAX_DATA_MESSAGE_BYTES = 1024 * 1024;

export function byteStreamInfo(rehydration: Rehydration, ids: { sha256: string; manifest_id: string; work_unit_id: string }): ByteStreamInfo {
  return {
    size: rehydration.size,
    content_length: rehydration.contentLength,
    range_start: rehydration.range?.start,
    range_end: rehydration.range?.end,
    sha256: ids.sha256,
    manifest_id: ids.manifest_id,
    work_unit_id: ids.work_unit_id,
  };
}

/** Writes every byte of `rehydration` as `{ data }` messages. */
export async function writeBytes<Res>(sink: MessageSink<Res>, rehydration: Rehydration, message: (data: Uint8Array) => Res): Promise<void> {
  for await (const chunk of rehydration.stream) {
    for (let offset = 0; offset < chunk.byteLength; offset += MAX_DATA_MESSAGE_BYTES) {
      await sink.write(message(chunk.subarray(offset, Math.min(offset + MAX_DATA_MESSAGE_BYTES, chunk.byteLength))));
    }
  }
}
