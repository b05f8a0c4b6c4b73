/**
 * Rich REST answers on gRPC: the exact REST JSON body as a
 * `google.protobuf.Struct` (the proto's `result` fields), and byte streams
 * collected for client-streaming uploads with the REST body limit.
 */
import { SvcError } from '../../errors.ts';
import type { Struct } from '../generated/google/protobuf/Struct.ts';
import { toStruct } from './struct.ts';

/** A REST JSON body as a Struct (what the proto calls `result`). */
export function jsonResult(body: object): Struct {
  return toStruct(body as Record<string, unknown>);
}

/**
 * Concatenates the `data` of streamed messages, refusing more than `limit`
 * bytes as REST refuses a body over its limit (413, RESOURCE_EXHAUSTED).
 */
export async function collectData<M extends { data?: Buffer | Uint8Array }>(messages: AsyncIterable<M>, limit: number, what: string): Promise<Buffer> {
  const pieces: Buffer[] = [];
  let size = 0;
  for await (const m of messages) {
    if (m.data === undefined) continue;
    size += m.data.byteLength;
    if (size > limit) throw new SvcError('payload_too_large', `${what} is larger than ${limit} bytes`);
    pieces.push(Buffer.from(m.data));
  }
  return Buffer.concat(pieces, size);
}
