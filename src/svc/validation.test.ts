import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Type from 'typebox';
import { SvcError } from './errors.ts';
import { validate } from './validation.ts';

const Schema = Type.Object(
  {
    kind: Type.Union([Type.Literal('byte_object'), Type.Literal('prompt_request')]),
    svc: Type.Optional(Type.Object({ mode: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false },
);

function messageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof SvcError);
    return err.message;
  }
  throw new Error('expected a validation error');
}

describe('validate', () => {
  it('names an unknown field and where it is', () => {
    const m = messageOf(() => validate(Schema, { kind: 'byte_object', foo: 1, svc: { mode: 'x', bar: 2 } }));
    assert.match(m, /unknown field `foo` at \//);
    assert.match(m, /unknown field `bar` at \/svc/);
    assert.doesNotMatch(m, /additional properties/);
  });

  it('says a union of constants once, listing the allowed values', () => {
    const m = messageOf(() => validate(Schema, { kind: 'nope' }));
    assert.equal(m, 'invalid request body: /kind: must be one of: "byte_object", "prompt_request"');
  });

  it('names path parameters as path parameters', () => {
    const m = messageOf(() => validate(Type.Object({ id: Type.String({ pattern: '^wu_' }) }), { id: 'x' }, 'invalid_request', 'path parameters'));
    assert.match(m, /^invalid path parameters: \/id:/);
  });
});
