/**
 * Small helpers the smoke suites share for reading responses: JSON bodies,
 * the attr error code, and the audit log's entries.
 */
import { readFile } from 'node:fs/promises';
import type { AuditEntry } from '../audit/audit-entry.ts';

export async function jsonOf(res: Response): Promise<Record<string, unknown>> {
  try {
    return (await res.json()) as Record<string, unknown>;
  } catch {
    return {};
  }
}

/** `error.code` of an attr error body, or undefined. */
export function errorCodeOf(body: Record<string, unknown>): string | undefined {
  const error = body.error as { code?: unknown } | undefined;
  return typeof error?.code === 'string' ? error.code : undefined;
}

export async function readAuditEntries(auditLogPath: string): Promise<AuditEntry[]> {
  const text = await readFile(auditLogPath, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as AuditEntry);
}

/** A question about the example corpus (any corpus works: the demo answer comes from it). */
export const SMOKE_PROMPT = 'What do the registered sources say about this topic?';
