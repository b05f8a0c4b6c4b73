/**
 * One plugin sandbox worker thread (decision 149). Plugin code runs inside
 * QuickJS compiled to WebAssembly: the interpreter's whole world is its own
 * linear memory, so plugin code has no `process`, no `require`, no file
 * system, no network, no timers and no view of svc's heap or secrets — only
 * the values this file copies in. Each call gets a fresh runtime and context
 * (no state survives between calls), a memory limit enforced by QuickJS's
 * allocator and an interrupt deadline checked by its interpreter loop. The
 * host (plugin-sandbox.ts) additionally terminates this thread if a call
 * overruns its deadline by a second, so even a stuck WASM call cannot hold
 * svc.
 */
import { parentPort } from 'node:worker_threads';
import variant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, shouldInterruptAfterDeadline, type QuickJSContext, type QuickJSHandle } from 'quickjs-emscripten-core';
import type { SandboxFailureReason, SandboxReply, SandboxRequest } from './sandbox-protocol.ts';

// The package's default export is the variant; its typings describe the CommonJS module shape.
const quickjs = await newQuickJSWASMModuleFromVariant(variant as unknown as Parameters<typeof newQuickJSWASMModuleFromVariant>[0]);

/**
 * Runs inside the VM: calls the plugin's function and reduces its result to
 * a string or an ArrayBuffer, the two shapes the host copies out. Transform
 * output is tagged: 't' + text, or the raw ArrayBuffer.
 */
const HARNESS = `
globalThis.__svc_call = function (op, a, b, c) {
  var p = globalThis.plugin;
  if (typeof p !== 'object' || p === null) throw new TypeError('the entry must define globalThis.plugin');
  if (op === 'transform' || op === 'verify') {
    if (typeof p[op] !== 'function') throw new TypeError('plugin.' + op + ' is not a function');
    var input = { bytes: new Uint8Array(a), text: b };
    var out = p[op](input, JSON.parse(c));
    if (op === 'verify') return JSON.stringify(out);
    if (typeof out === 'string') return 't' + out;
    if (out instanceof Uint8Array) return out.buffer.slice(out.byteOffset, out.byteOffset + out.byteLength);
    if (out instanceof ArrayBuffer) return out;
    throw new TypeError('plugin.transform must return a string or a Uint8Array');
  }
  if (typeof p.adapter !== 'function') throw new TypeError('plugin.adapter is not a function');
  return JSON.stringify(p.adapter(a, JSON.parse(b), JSON.parse(c)));
};`;

class CallFailure extends Error {
  readonly reason: SandboxFailureReason;
  constructor(reason: SandboxFailureReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

function errorText(vm: QuickJSContext, handle: QuickJSHandle): string {
  const dumped = vm.dump(handle) as unknown;
  handle.dispose();
  if (dumped && typeof dumped === 'object' && 'message' in dumped) return String((dumped as { message: unknown }).message);
  return String(dumped);
}

function classify(message: string, deadline: number): SandboxFailureReason {
  if (/interrupted/i.test(message) || Date.now() >= deadline) return 'timeout';
  if (/out of memory|memory|stack overflow/i.test(message)) return 'memory';
  return 'error';
}

function run(req: SandboxRequest): SandboxReply {
  const deadline = Date.now() + req.timeoutMs;
  const runtime = quickjs.newRuntime();
  try {
    runtime.setMemoryLimit(req.memoryBytes);
    runtime.setMaxStackSize(512 * 1024);
    runtime.setInterruptHandler(shouldInterruptAfterDeadline(deadline));
    const vm = runtime.newContext();
    try {
      for (const [code, filename] of [
        [req.code, req.filename],
        [HARNESS, 'svc-harness.js'],
      ] as const) {
        const r = vm.evalCode(code, filename);
        if (r.error) {
          const msg = errorText(vm, r.error);
          throw new CallFailure(classify(msg, deadline), msg);
        }
        r.value.dispose();
      }
      const call = req.call;
      const args: QuickJSHandle[] =
        call.op === 'adapter'
          ? [vm.newString('adapter'), vm.newString(call.operation), vm.newString(JSON.stringify(call.body ?? null)), vm.newString(JSON.stringify(call.params ?? {}))]
          : [vm.newString(call.op), vm.newArrayBuffer(call.bytes.slice().buffer), call.text === null ? vm.null : vm.newString(call.text), vm.newString(JSON.stringify(call.params ?? {}))];
      const fn = vm.getProp(vm.global, '__svc_call');
      const result = vm.callFunction(fn, vm.undefined, ...args);
      fn.dispose();
      for (const a of args) if (a.alive && a !== vm.null) a.dispose();
      if (result.error) {
        const msg = errorText(vm, result.error);
        throw new CallFailure(classify(msg, deadline), msg);
      }
      const handle = result.value;
      try {
        if (vm.typeof(handle) === 'string') {
          const s = vm.getString(handle);
          if (call.op === 'transform') return { callId: req.callId, ok: true, kind: 'text', text: s.slice(1) };
          return { callId: req.callId, ok: true, kind: 'json', json: s };
        }
        if (call.op === 'transform') {
          const lifetime = vm.getArrayBuffer(handle);
          const bytes = new Uint8Array(lifetime.value); // copies out of the VM's memory
          lifetime.dispose();
          return { callId: req.callId, ok: true, kind: 'bytes', bytes };
        }
        throw new CallFailure('bad_output', `plugin returned ${vm.typeof(handle)} where JSON was expected`);
      } finally {
        handle.dispose();
      }
    } finally {
      vm.dispose();
    }
  } catch (err) {
    if (err instanceof CallFailure) return { callId: req.callId, ok: false, reason: err.reason, message: err.message.slice(0, 500) };
    const msg = err instanceof Error ? err.message : String(err);
    return { callId: req.callId, ok: false, reason: classify(msg, deadline), message: msg.slice(0, 500) };
  } finally {
    try {
      runtime.dispose();
    } catch {
      // A runtime stopped mid-allocation may not free cleanly; the next call gets a new one.
    }
  }
}

parentPort?.on('message', (req: SandboxRequest) => {
  const reply = run(req);
  parentPort?.postMessage(reply, reply.ok && reply.kind === 'bytes' ? [reply.bytes.buffer as ArrayBuffer] : []);
});
