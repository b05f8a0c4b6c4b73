/** Messages between the plugin sandbox host (plugin-sandbox.ts) and its worker threads. */

export type SandboxOp = { op: 'transform'; bytes: Uint8Array; text: string | null; params: unknown } | { op: 'verify'; bytes: Uint8Array; text: string | null; params: unknown } | { op: 'adapter'; operation: string; body: unknown; params: unknown };

export interface SandboxRequest {
  callId: number;
  /** The plugin's entry source (already checked against its signed digest). */
  code: string;
  filename: string;
  timeoutMs: number;
  memoryBytes: number;
  call: SandboxOp;
}

export type SandboxFailureReason = 'timeout' | 'memory' | 'error' | 'bad_output' | 'crash';

export type SandboxReply =
  | { callId: number; ok: true; kind: 'bytes'; bytes: Uint8Array }
  | { callId: number; ok: true; kind: 'text'; text: string }
  | { callId: number; ok: true; kind: 'json'; json: string }
  | { callId: number; ok: false; reason: SandboxFailureReason; message: string };
