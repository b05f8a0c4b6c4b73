/**
 * Validation shared by every surface (REST, gRPC, CLI): compiles a TypeBox
 * schema once and turns failures into an `SvcError` listing each offending
 * path, so a client sees the same message whichever way it came in.
 */
import { Compile, type Validator } from 'typebox/compile';
import type { Static, TSchema } from 'typebox';
import { SvcError, type SvcErrorCode } from './errors.ts';

const cache = new WeakMap<TSchema, Validator>();

function validatorFor(schema: TSchema): Validator {
  let v = cache.get(schema);
  if (!v) {
    v = Compile(schema) as unknown as Validator;
    cache.set(schema, v);
  }
  return v;
}

/** What is being validated, for the message: the request body unless a route says path parameters or query. */
export type ValidationSubject = 'request body' | 'path parameters' | 'query parameters' | 'plugin bundle' | 'plugin manifest';

interface SchemaError {
  keyword?: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/**
 * One readable problem per place: an unknown field is named ("unknown field
 * `foo` at /svc"); the alternatives of a union of constants become one
 * "must be one of: a, b, c" instead of one line per alternative.
 */
export function describeProblems(errors: readonly SchemaError[]): string[] {
  const problems: string[] = [];
  const constsAt = new Map<string, unknown[]>();
  for (const e of errors) {
    if (e.keyword === 'const' && e.instancePath !== undefined) {
      const list = constsAt.get(e.instancePath) ?? [];
      list.push(e.params?.['allowedValue']);
      constsAt.set(e.instancePath, list);
    }
  }
  for (const e of errors) {
    const where = e.instancePath || '/';
    // "schema is false" repeats what `additionalProperties` says about the same key.
    if (e.message === 'schema is false') continue;
    if (e.keyword === 'additionalProperties') {
      const extra = e.params?.['additionalProperties'];
      for (const name of Array.isArray(extra) ? extra : [extra]) problems.push(`unknown field \`${String(name)}\` at ${where}`);
      continue;
    }
    const consts = constsAt.get(e.instancePath ?? '');
    if (consts && (e.keyword === 'const' || e.keyword === 'anyOf')) {
      if (e.keyword === 'const' && consts.length > 0) {
        problems.push(`${where}: must be one of: ${consts.map((c) => JSON.stringify(c)).join(', ')}`);
        consts.length = 0; // once per place
      }
      continue;
    }
    problems.push(`${where}: ${e.message ?? 'invalid'}`);
  }
  return problems.slice(0, 10);
}

/** Returns `value` typed as the schema, or throws `code` (default invalid_request) naming every problem. */
export function validate<S extends TSchema>(schema: S, value: unknown, code: SvcErrorCode = 'invalid_request', subject: ValidationSubject = 'request body'): Static<S> {
  const v = validatorFor(schema);
  if (v.Check(value)) return value as Static<S>;
  const problems = describeProblems([...v.Errors(value)] as SchemaError[]);
  throw new SvcError(code, `invalid ${subject}: ${problems.join('; ')}`, { details: { problems } });
}
