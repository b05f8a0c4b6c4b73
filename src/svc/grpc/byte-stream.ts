/**
 * Streamed byte reads (ManifestService/Rehydrate, ObjectGatewayService/Get).
 * The request's `ByteRange` becomes the REST `range` object, which the
 * domain validates. The response is a `ByteStreamInfo` (size, length, range,
 * digest), then the bytes in order, split so no message exceeds
 * {@link MAX_DATA_MESSAGE_BYTES} (clients accept 4 MiB messages by default). Rehydration verifies while streaming; a failure
 * surfaces as a throw from the iterator, which the stream frame turns into an
 * error status. A client that goes away stops the read (the iterator is
 * returned, releasing its chunk reads).
 */
import type { ByteRange__Output } from './generated/svc/v1/ByteRange.ts';
import type { ByteStreamInfo } from './generated/svc/v1/ByteStreamInfo.ts';
import { restBody } from './mapping/rest-body.ts';
import type { Rehydration } from '../exact-bytes/rehydrate.ts';
import type { MessageSink } from './rpc-handlers.ts';

export const MAX_DATA_MESSAGE_BYTES = 1024 * 1024;

/** A `ByteRange` message as the REST `range` object (`{start, end?}` or `{suffix}`); `undefined` for the whole object. */
export function byteRangeBody(range: ByteRange__Output | undefined): Record<string, unknown> | undefined {
  return range === undefined ? undefined : restBody({ start: range.start, end: range.end, suffix: range.suffix });
}

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
