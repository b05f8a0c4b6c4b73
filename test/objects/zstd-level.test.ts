/**
 * `storage.zstd_level` reaches the chunks a server stores (decision 190): the
 * same text uploaded to a server at the default level 3 and to one at level 9
 * is stored smaller by the second, and comes back bit for bit from both.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
let level3: TestServer;
let level9: TestServer;

before(async () => {
  level3 = await startTestServer({ engine: 'sqlite' });
  level9 = await startTestServer({ engine: 'sqlite', overrides: { 'storage.zstd_level': 9 } });
});
after(async () => {
  await level3?.close();
  await level9?.close();
});

async function put(s: TestServer, data: Uint8Array): Promise<{ stored: number; manifest: string }> {
  const res = await fetch(`${s.url}/v1/s3/objects?bucket=levels&key=text.log`, { method: 'PUT', headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/octet-stream', 'x-svc-content-sha256': sha256(data) }, body: data });
  const body = (await res.json()) as { details: { bytes_stored: number }; manifest_id: string };
  assert.equal(res.status, 201, JSON.stringify(body));
  return { stored: body.details.bytes_stored, manifest: body.manifest_id };
}

// Below and above the size from which compression runs on a worker (decision 189): both paths honour the level.
for (const size of [1024 * 1024, 5 * 1024 * 1024]) {
  test(`a ${size >> 20} MiB text object is stored smaller at storage.zstd_level 9 than at the default 3`, async () => {
    const data = corpusFile('log-like', size, `zstd-level-${size}`);
    const at3 = await put(level3, data);
    const at9 = await put(level9, data);
    assert.ok(at9.stored < at3.stored * 0.95, `level 9 stored ${at9.stored}, level 3 ${at3.stored}`);
    for (const [s, r] of [[level3, at3], [level9, at9]] as const) {
      const back = await s.call('POST', `/v1/manifests/${r.manifest}/rehydrate`, { key: KEYS.acmeWriter, body: {} });
      assert.deepEqual(Buffer.from(await back.arrayBuffer()), data);
    }
  });
}
