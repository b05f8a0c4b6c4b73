import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { PluginSandbox } from './plugin-sandbox.ts';

const sandbox = new PluginSandbox({ workers: 2 });
after(() => sandbox.close());

const limits = { timeoutMs: 500, memoryBytes: 16 * 1024 * 1024 };
const transform = (code: string, bytes: Uint8Array, text: string | null = null) => sandbox.run({ code, filename: 'plugin.js', ...limits, call: { op: 'transform', bytes, text, params: {} } });

describe('plugin sandbox (QuickJS/WASM in worker threads)', () => {
  it('runs a text transform and a binary transform', async () => {
    const up = await transform('globalThis.plugin = { transform: (i) => i.text.toUpperCase() };', new TextEncoder().encode('hello'), 'hello');
    assert.deepEqual(up, { ok: true, kind: 'text', text: 'HELLO' });
    const rev = await transform('globalThis.plugin = { transform: (i) => i.bytes.slice().reverse() };', Uint8Array.from([1, 2, 3]));
    assert.equal(rev.ok, true);
    assert.deepEqual(rev.ok && rev.kind === 'bytes' ? [...rev.bytes] : null, [3, 2, 1]);
  });

  it('stops an endless loop at its deadline and keeps serving', async () => {
    const started = Date.now();
    const r = await transform('globalThis.plugin = { transform: () => { for (;;) {} } };', new Uint8Array(1));
    assert.equal(r.ok, false);
    assert.equal(!r.ok && r.reason, 'timeout');
    assert.ok(Date.now() - started < 5000);
    const again = await transform('globalThis.plugin = { transform: () => "ok" };', new Uint8Array(1));
    assert.deepEqual(again, { ok: true, kind: 'text', text: 'ok' });
  });

  it('stops unbounded allocation at its limit and keeps serving', async () => {
    const r = await transform('globalThis.plugin = { transform: () => { const a = []; for (;;) a.push(new Array(100000).fill(1)); } };', new Uint8Array(1));
    assert.equal(r.ok, false);
    // QuickJS either refuses the allocation (memory) or its GC thrashes near the limit until the deadline (timeout).
    assert.ok(!r.ok && (r.reason === 'memory' || r.reason === 'timeout'), JSON.stringify(r));
    const again = await transform('globalThis.plugin = { transform: () => "ok" };', new Uint8Array(1));
    assert.deepEqual(again, { ok: true, kind: 'text', text: 'ok' });
  });

  it('gives plugin code no host objects', async () => {
    const r = await transform('globalThis.plugin = { transform: () => [typeof process, typeof require, typeof fetch, typeof setTimeout, typeof globalThis.Buffer].join(",") };', new Uint8Array(1));
    assert.deepEqual(r, { ok: true, kind: 'text', text: 'undefined,undefined,undefined,undefined,undefined' });
  });

  it('starts every call in a fresh context', async () => {
    const code = 'globalThis.counter = (globalThis.counter || 0) + 1; globalThis.plugin = { transform: () => String(globalThis.counter) };';
    for (let i = 0; i < 3; i += 1) assert.deepEqual(await transform(code, new Uint8Array(1)), { ok: true, kind: 'text', text: '1' });
  });

  it('reports a thrown error, verifier and adapter results', async () => {
    const thrown = await transform('globalThis.plugin = { transform: () => { throw new Error("nope") } };', new Uint8Array(1));
    assert.deepEqual(thrown, { ok: false, reason: 'error', message: 'nope' });
    const v = await sandbox.run({ code: 'globalThis.plugin = { verify: (i) => ({ passed: i.bytes.length === 2, reason: "len" }) };', filename: 'v.js', ...limits, call: { op: 'verify', bytes: new Uint8Array(2), text: null, params: {} } });
    assert.deepEqual(v, { ok: true, kind: 'json', json: '{"passed":true,"reason":"len"}' });
    const a = await sandbox.run({ code: 'globalThis.plugin = { adapter: (op, body) => ({ op, n: body.n + 1 }) };', filename: 'a.js', ...limits, call: { op: 'adapter', operation: 'count', body: { n: 1 }, params: {} } });
    assert.deepEqual(a, { ok: true, kind: 'json', json: '{"op":"count","n":2}' });
  });
});
