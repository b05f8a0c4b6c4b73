/**
 * Redaction of sensitive fields before anything reaches a log. Keys are
 * matched case-insensitively at any depth (objects and arrays); the value is
 * replaced, whatever its type.
 */
export const REDACTED = '[redacted]';

export const DEFAULT_SENSITIVE_KEYS = ['prompt', 'payload', 'body', 'content', 'token', 'secret'] as const;

export function makeRedactor(keys: readonly string[] = DEFAULT_SENSITIVE_KEYS) {
  const lowered = keys.map((k) => k.toLowerCase());
  const isSensitive = (key: string): boolean => {
    const k = key.toLowerCase();
    // Matches `token`, `api_token`, `prompt_text`, `x-api-key`-style variants.
    return lowered.some((s) => k === s || k.startsWith(`${s}_`) || k.endsWith(`_${s}`) || k.endsWith(`-${s}`)) || k === 'authorization' || k === 'x-api-key' || k === 'api_key' || k === 'password' || k === 'messages';
  };
  const redact = (value: unknown, seen = new WeakSet<object>()): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (seen.has(value)) return '[circular]';
    seen.add(value);
    if (Array.isArray(value)) return value.map((v) => redact(v, seen));
    if (value instanceof Uint8Array) return REDACTED;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = isSensitive(k) ? REDACTED : redact(v, seen);
    return out;
  };
  return (value: unknown): unknown => redact(value);
}

export const redactSensitive = makeRedactor();
