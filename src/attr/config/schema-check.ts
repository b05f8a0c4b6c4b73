/**
 * One way to check a value against a TypeBox schema and report every problem
 * with its JSON-pointer path. Config files, the trust store and readiness
 * artifacts all go through it, so "unknown key /limits/max_promt_bytes" reads
 * the same everywhere.
 */
import type { TSchema, Static } from 'typebox';
import { Compile } from 'typebox/compile';

/** One schema violation: where (JSON pointer, `""` for the root) and what. */
export interface SchemaIssue {
  path: string;
  message: string;
}

export interface SchemaChecker<T extends TSchema> {
  readonly schema: T;
  /** True when `value` conforms; narrows its type. */
  check(value: unknown): value is Static<T>;
  /** Every violation, unknown keys reported with their own path. Empty when valid. */
  issues(value: unknown): SchemaIssue[];
}

/** Compiles `schema` once; reuse the checker (compilation is the slow part). */
export function compileChecker<T extends TSchema>(schema: T): SchemaChecker<T> {
  const compiled = Compile(schema);
  return {
    schema,
    check: (value: unknown): value is Static<T> => compiled.Check(value),
    issues(value: unknown): SchemaIssue[] {
      const out: SchemaIssue[] = [];
      const seen = new Set<string>();
      for (const error of compiled.Errors(value)) {
        // TypeBox reports an unknown key twice: once as `additionalProperties`
        // on the parent and once as "schema is false" on the key itself. Keep
        // the per-key form: it names the offending path.
        if (error.keyword === 'additionalProperties') continue;
        const message = error.keyword === 'boolean' ? 'unknown key' : error.message;
        const key = `${error.instancePath}\u0000${message}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push({ path: error.instancePath, message });
      }
      return out;
    },
  };
}
