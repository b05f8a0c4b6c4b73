/**
 * Operational logs: JSONL in `<state_dir>/logs/svc.jsonl`, written by pino.
 * Every entry passes through the redactor first, so fields named prompt,
 * payload, body, content, token or secret never reach the file, at any
 * depth. Logs are for debugging; the ledger is the audit record.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { redactSensitive } from '../../core/redact.ts';

export interface LogFields {
  event_type: string;
  tenant?: string | null | undefined;
  work_unit_id?: string | null | undefined;
  manifest_id?: string | null | undefined;
  policy_bundle_id?: string | null | undefined;
  trace_id?: string | null | undefined;
  error_code?: string | undefined;
  [extra: string]: unknown;
}

export interface OpLog {
  readonly file: string | undefined;
  debug(fields: LogFields, message: string): void;
  info(fields: LogFields, message: string): void;
  warn(fields: LogFields, message: string): void;
  error(fields: LogFields, message: string): void;
  /** Alert-level entries (critical alerts of the spec): severity "alert". */
  alert(fields: LogFields, message: string): void;
  /** Whether entries at `level` are written: callers that build fields per request skip the work otherwise. */
  enabled(level: 'debug' | 'info' | 'warn' | 'error' | 'alert'): boolean;
  flush(): Promise<void>;
}

export const LOG_FILE = path.join('logs', 'svc.jsonl');

function build(logger: Logger, file: string | undefined, flush: () => Promise<void>): OpLog {
  const write = (level: 'debug' | 'info' | 'warn' | 'error' | 'fatal', severity: string) => (fields: LogFields, message: string) => {
    // A level that is off costs nothing: the redaction walk and the copy ran on every request before (one line per request at info).
    if (!logger.isLevelEnabled(level)) return;
    logger[level]({ ...(redactSensitive(fields) as object), severity }, message);
  };
  return {
    file,
    debug: write('debug', 'debug'),
    info: write('info', 'info'),
    warn: write('warn', 'warning'),
    error: write('error', 'error'),
    alert: write('fatal', 'alert'),
    enabled: (level) => logger.isLevelEnabled(level === 'alert' ? 'fatal' : level),
    flush,
  };
}

export function createOpLog(stateDir: string, level: string): OpLog {
  const file = path.join(stateDir, LOG_FILE);
  mkdirSync(path.dirname(file), { recursive: true });
  // Synchronous writes: an entry is in the file when the call returns (crash-safe,
  // and queries see it at once); the cost is one write(2) per entry.
  const dest = pino.destination({ dest: file, sync: true, mkdir: true });
  const logger = pino(
    {
      level,
      base: undefined,
      messageKey: 'message',
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label: string) => ({ level: label }) },
    },
    dest,
  );
  return build(logger, file, async () => undefined);
}

/** A logger that writes nothing (CLI one-shots, some tests). */
export function silentOpLog(): OpLog {
  return build(pino({ level: 'silent' }), undefined, async () => undefined);
}
