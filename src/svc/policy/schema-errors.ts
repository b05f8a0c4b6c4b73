/**
 * Turns raw schema-validation errors into the few a person needs. A value
 * that fails a union produces one error per branch plus the union's own;
 * we keep the errors of the branch whose JSON type matches the value (the
 * one the author evidently meant) or, when none does, the union's error
 * with a message listing what was expected.
 */
import { Value } from 'typebox/value';
import type { TSchema } from 'typebox';
import { pointerSegments } from './yaml-locations.ts';

export interface SchemaIssue {
  /** JSON pointer into the document, e.g. `/policies/3/effect`. */
  path: string;
  message: string;
  /** Unknown-field errors point at the key, not the value. */
  atKey: boolean;
}

interface RawError {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
  message: string;
}

function resolveSchema(root: unknown, schemaPath: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const seg of pointerSegments(schemaPath.replace(/^#/, ''))) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[seg];
  }
  return node !== null && typeof node === 'object' ? (node as Record<string, unknown>) : undefined;
}

function valueAt(root: unknown, pointer: string): unknown {
  let node: unknown = root;
  for (const seg of pointerSegments(pointer)) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[seg];
  }
  return node;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

function branchTypes(branch: Record<string, unknown>): string[] {
  // Unions nest (a condition is a scalar union or an object), so flatten them.
  const nested = branch['anyOf'];
  if (Array.isArray(nested)) return nested.flatMap((b) => branchTypes(b as Record<string, unknown>));
  const t = branch['type'];
  if (t === undefined) return [];
  return (Array.isArray(t) ? t : [t]).map(String);
}

function branchAccepts(branch: Record<string, unknown>, type: string): boolean {
  const types = branchTypes(branch);
  return types.includes(type) || (type === 'integer' && types.includes('number'));
}

function describeBranches(branches: Array<Record<string, unknown>>): string {
  return [...new Set(branches.flatMap(branchTypes))].join(', ');
}

function humanMessage(e: RawError): string {
  if (e.keyword === 'enum') return `must be one of: ${(e.params['allowedValues'] as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if (e.keyword === 'required') return `missing required field '${String((e.params['requiredProperties'] as unknown[] | undefined)?.join("', '") ?? '')}'`;
  if (e.keyword === 'pattern') return `must match ${String(e.params['pattern'])}`;
  return e.message;
}

/** Validates `value` against `schema` and returns de-noised issues (empty when valid). */
export function schemaIssues(schema: TSchema, value: unknown): SchemaIssue[] {
  const raw = [...Value.Errors(schema, value)] as unknown as RawError[];
  const unions = raw.filter((e) => e.keyword === 'anyOf');
  const dropped = new Set<RawError>();
  const replaced = new Map<RawError, string>();
  for (const union of unions) {
    const branches = (resolveSchema(schema, union.schemaPath)?.['anyOf'] as Array<Record<string, unknown>> | undefined) ?? [];
    const type = jsonType(valueAt(value, union.instancePath));
    const meant = branches.findIndex((b) => branchAccepts(b, type));
    const prefix = `${union.schemaPath}/anyOf/`;
    for (const e of raw) {
      if (e === union || !e.schemaPath.startsWith(prefix)) continue;
      const branchIndex = Number(e.schemaPath.slice(prefix.length).split('/')[0]);
      if (meant === -1 || branchIndex !== meant) dropped.add(e);
    }
    if (meant === -1) replaced.set(union, `must be one of these types: ${describeBranches(branches)}`);
    else dropped.add(union);
  }
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  for (const e of raw) {
    if (dropped.has(e)) continue;
    // additionalProperties reports twice (a `false` sub-schema per key, and once on the object); keep the per-key one.
    if (e.keyword === 'additionalProperties') continue;
    const isUnknownKey = e.keyword === 'boolean' && e.schemaPath.endsWith('/additionalProperties');
    const message = isUnknownKey ? `unknown field '${pointerSegments(e.instancePath).at(-1) ?? ''}'` : (replaced.get(e) ?? humanMessage(e));
    const key = `${e.instancePath}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path: e.instancePath, message, atKey: isUnknownKey });
  }
  return issues;
}
