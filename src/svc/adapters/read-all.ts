/** Collects a rehydration stream into one buffer, refusing more than `limit` bytes. */
export async function readAll(stream: AsyncIterable<Uint8Array>, limit: number): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  let n = 0;
  for await (const p of stream) {
    n += p.byteLength;
    if (n > limit) throw new Error(`more than ${limit} bytes`);
    parts.push(p);
  }
  return Buffer.concat(parts, n);
}
