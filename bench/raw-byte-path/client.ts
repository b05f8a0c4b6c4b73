/**
 * The client side of the raw-byte-path benchmark, run as its own process
 * (like the CLI): the byte paths the CLI no longer takes, kept here so the
 * same run can measure them beside the one it takes now, and the transport
 * anchors.
 *
 *   client.ts json-multipart <url> <key> <file> <bucket> <objectKey>
 *     the previous `svc execute` for files above 8 MiB: JSON multipart,
 *     8 MiB parts as base64 (src/svc/cli/multipart-upload.ts before decision 112)
 *   client.ts buffered-rehydrate <url> <key> <manifestId> <out>
 *     the previous `svc manifest rehydrate --out`: the whole answer in memory, then one write
 *   client.ts raw-anchor <url> <file>           bare HTTP upload with the CLI's own uploader
 *   client.ts download-anchor <url> <out>       bare HTTP download with the CLI's own downloader
 */
import fs from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { downloadTo, uploadFile } from '../../src/svc/cli/byte-transfer.ts';

const PART = 8 * 1024 * 1024;
const [mode, url, ...rest] = process.argv.slice(2);

async function post(key: string, route: string, body: unknown): Promise<Response> {
  const res = await fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${route}: HTTP ${res.status} ${await res.text()}`);
  return res;
}

if (mode === 'json-multipart') {
  const [key, file, bucket, objectKey] = rest as [string, string, string, string];
  const { upload_id } = (await (await post(key, '/v1/s3/multipart/create', { bucket, key: objectKey })).json()) as { upload_id: string };
  const handle = await fs.open(file, 'r');
  const buffer = Buffer.alloc(PART);
  const parts: Array<{ part_number: number; sha256: string }> = [];
  for (let n = 1; ; n++) {
    const { bytesRead } = await handle.read(buffer, 0, PART, null);
    if (bytesRead === 0 && n > 1) break;
    const r = (await (await post(key, '/v1/s3/multipart/part', { upload_id, part_number: n, body_base64: buffer.subarray(0, bytesRead).toString('base64') })).json()) as { sha256: string };
    parts.push({ part_number: n, sha256: r.sha256 });
    if (bytesRead < PART) break;
  }
  await handle.close();
  process.stdout.write(await (await post(key, '/v1/s3/multipart/complete', { upload_id, parts })).text());
} else if (mode === 'buffered-rehydrate') {
  const [key, manifestId, out] = rest as [string, string, string];
  const res = await post(key, `/v1/manifests/${manifestId}/rehydrate`, {});
  writeFileSync(out, new Uint8Array(await res.arrayBuffer()));
} else if (mode === 'raw-anchor') {
  await uploadFile({ baseUrl: url!, apiKey: undefined }, 'PUT', '/upload', rest[0]!);
} else if (mode === 'download-anchor') {
  await downloadTo({ baseUrl: url!, apiKey: undefined }, 'POST', '/0', {}, rest[0]!);
} else {
  console.error(`unknown mode ${mode}`);
  process.exit(2);
}
