/**
 * Builds a work unit create body from a file, the way `svc plan`, `svc
 * execute` and `svc work-unit create` read their `--file`: bytes for
 * byte_object (binary envelope), a JSON payload for the AI kinds.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface FileInputOptions {
  kind: string;
  file: string;
  tenant?: string | undefined;
  logicalRef?: string | undefined;
  contract?: string | undefined;
  metadata?: Record<string, string> | undefined;
}

/** `--file -`: standard input. */
export const STDIN = '-';

/**
 * A pipe has no name to default to: reading standard input, the object must be named — by `--logical-ref`, or by
 * `--key` when it is stored as an object (`--bucket` / `--key`).
 */
export function requireStdinName(o: { file: string; logicalRef?: string | undefined; bucket?: string | undefined; key?: string | undefined }): void {
  if (o.file !== STDIN) return;
  const asObject = o.bucket !== undefined || o.key !== undefined;
  if (asObject ? o.key === undefined : o.logicalRef === undefined) {
    throw new Error(`--file - reads standard input, which has no name: name it with ${asObject ? '--key' : '--logical-ref scheme://path (or --bucket/--key)'}`);
  }
}

export function workUnitBodyFromFile(o: FileInputOptions): Record<string, unknown> {
  requireStdinName(o);
  // Standard input (file descriptor 0) is read whole: these bodies are JSON requests or inline envelopes.
  const bytes = readFileSync(o.file === STDIN ? 0 : o.file);
  let payload: unknown;
  if (o.kind === 'byte_object') {
    payload = { _svc_encoding: 'base64', data: bytes.toString('base64') };
  } else {
    try {
      payload = JSON.parse(bytes.toString('utf8'));
    } catch {
      throw new Error(`${o.file}: a ${o.kind} file must be JSON (for prompt_request: {"messages":[{"role":"user","content":"…"}]})`);
    }
  }
  const body: Record<string, unknown> = {
    kind: o.kind,
    logical_ref: o.logicalRef ?? pathToFileURL(path.resolve(o.file)).href,
    payload,
  };
  if (o.tenant) body.tenant = o.tenant;
  if (o.contract) body.requested_contract = o.contract;
  if (o.metadata) body.metadata = o.metadata;
  return body;
}

/** `--meta owner=alice --meta team=x` → { owner: 'alice', team: 'x' } */
export function collectMeta(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const i = value.indexOf('=');
  if (i <= 0) throw new Error(`--meta expects key=value, got '${value}'`);
  return { ...previous, [value.slice(0, i)]: value.slice(i + 1) };
}
