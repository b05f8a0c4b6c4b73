import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { chunkIdOf } from './chunk-id.ts';
import { chunkScopeFor } from './chunk-scope.ts';
import { buildPack, buildPackParts, parsePack } from './pack-format.ts';
import { FsPackFiles } from './pack-files.ts';

const a = randomBytes(70_000);
const b = randomBytes(3_000);
const c = randomBytes(5);
const inputs = [
  { id: chunkIdOf(a), codec: 'raw' as const, data: a },
  { frame: [{ id: chunkIdOf(b), rawLength: b.length }, { id: chunkIdOf(c), rawLength: c.length }], payload: randomBytes(900) },
  { id: chunkIdOf(c), codec: 'zstd' as const, data: new Uint8Array(0) },
];

test('buildPackParts: the parts concatenate to buildPack, entries keep their own bytes (no copy)', () => {
  const parts = buildPackParts(inputs);
  const whole = buildPack(inputs);
  assert.deepEqual(Buffer.concat(parts.parts), whole.bytes);
  assert.equal(parts.size, whole.bytes.byteLength);
  assert.deepEqual(parts.entries, whole.entries);
  assert.deepEqual(parsePack(whole.bytes), whole.entries);
  assert.ok(parts.parts.includes(a), 'an entry is written from the caller buffer, not copied');
});

test('FsPackFiles.writeParts writes the pieces in order, durably under the pack name', async () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pack-parts-'));
  try {
    const files = new FsPackFiles({ root });
    const scope = chunkScopeFor('tenant', 'acme');
    const built = buildPackParts(inputs);
    await files.writeParts(scope, 'pk_' + '1'.repeat(32), built.parts);
    const onDisk = readFileSync(files.pathOf(scope, 'pk_' + '1'.repeat(32)));
    assert.deepEqual(onDisk, buildPack(inputs).bytes);
    const at = built.entries[0]!;
    assert.deepEqual(await files.read(scope, 'pk_' + '1'.repeat(32), at.offset, at.length), a);
    assert.equal(files.counters.files, 1);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
