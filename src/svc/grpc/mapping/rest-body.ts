/**
 * Builds the JSON object a domain function validates from decoded message
 * fields. Fields the client did not send are `undefined` (the loader fills
 * no defaults) and are left out, exactly as a REST client would leave them
 * out of its body; everything else is passed through for the domain's own
 * schema to judge.
 */
export function restBody(fields: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) body[key] = value;
  return body;
}

/** A repeated field the client left empty is indistinguishable from absent; absent it is. */
export function nonEmptyList<T>(list: readonly T[] | undefined): readonly T[] | undefined {
  return list && list.length > 0 ? list : undefined;
}

/** A nullable domain value as an optional message field. */
export function optional<T>(value: T | null | undefined): T | undefined {
  return value ?? undefined;
}
