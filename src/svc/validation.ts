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

/** Returns `value` typed as the schema, or throws `code` (default invalid_request) naming every problem. */
export function validate<S extends TSchema>(schema: S, value: unknown, code: SvcErrorCode = 'invalid_request'): Static<S> {
  const v = validatorFor(schema);
  if (v.Check(value)) return value as Static<S>;
  // "schema is false" repeats what `additionalProperties` already says about the same key.
  const problems = [...v.Errors(value)].filter((e) => (e as { message?: string }).message !== 'schema is false').slice(0, 10).map((e) => {
    const where = (e as { instancePath?: string }).instancePath || '/';
    return `${where}: ${(e as { message?: string }).message ?? 'invalid'}`;
  });
  throw new SvcError(code, `invalid request body: ${problems.join('; ')}`, { details: { problems } });
}
