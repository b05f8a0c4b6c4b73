/**
 * The published JSON Schemas of the REST bodies (Versioning 2): one file per
 * operation and part under `schemas/rest/` — `<operationId>.request.schema.json`
 * (JSON request body), `.query.schema.json` (query parameters) and
 * `.response.schema.json` (a declared 2xx JSON body) — derived from the served
 * OpenAPI document, which is itself generated from the TypeBox schemas that
 * validate requests. One source, three views; test/api/schema-drift.test.ts
 * fails when the files and the served document drift apart.
 *
 * `node src/svc/http/rest-schemas.ts --write` regenerates the files.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REST_SCHEMAS_DIR = fileURLToPath(new URL('../../../schemas/rest/', import.meta.url));
const ID_BASE = 'https://schemas.svc.dev/rest/v1/';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

interface Operation {
  operationId?: string;
  summary?: string;
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: unknown; description?: string }>;
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}

export interface OpenApiDocument {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  components?: { schemas?: Record<string, unknown> };
}

const COMPONENT_REF = '#/components/schemas/';

/** Rewrites `#/components/schemas/X` to `#/$defs/X` and collects the names used (transitively). */
function rewriteRefs(node: unknown, components: Record<string, unknown>, used: Map<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((n) => rewriteRefs(n, components, used));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$ref' && typeof v === 'string' && v.startsWith(COMPONENT_REF)) {
      const name = v.slice(COMPONENT_REF.length);
      if (!used.has(name)) {
        used.set(name, null);
        used.set(name, rewriteRefs(components[name], components, used));
      }
      out[k] = `#/$defs/${name}`;
    } else out[k] = rewriteRefs(v, components, used);
  }
  return out;
}

/** A standalone 2020-12 document: component references become local `$defs`. */
function document(id: string, title: string, schema: unknown, components: Record<string, unknown>): Record<string, unknown> {
  const used = new Map<string, unknown>();
  const body = rewriteRefs(schema, components, used) as Record<string, unknown>;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: `${ID_BASE}${id}.schema.json`, title, ...body, ...(used.size > 0 ? { $defs: Object.fromEntries(used) } : {}) };
}

/** File name → schema document, for every JSON body and query string the served OpenAPI declares. */
export function restSchemasFrom(openapi: OpenApiDocument): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const components = openapi.components?.schemas ?? {};
  const index: Array<{ operation: string; method: string; path: string; parts: string[] }> = [];
  for (const [route, item] of Object.entries(openapi.paths).sort(([a], [b]) => a.localeCompare(b))) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op?.operationId) continue;
      const parts: string[] = [];
      const body = op.requestBody?.content?.['application/json']?.schema;
      if (body) {
        out.set(`${op.operationId}.request.schema.json`, document(`${op.operationId}.request`, `${method.toUpperCase()} ${route} request body`, body, components));
        parts.push('request');
      }
      const query = (op.parameters ?? []).filter((p) => p.in === 'query');
      if (query.length > 0) {
        const properties = Object.fromEntries(query.map((p) => [p.name, { ...(p.schema as object), ...(p.description ? { description: p.description } : {}) }]));
        const required = query.filter((p) => p.required).map((p) => p.name);
        out.set(`${op.operationId}.query.schema.json`, document(`${op.operationId}.query`, `${method.toUpperCase()} ${route} query parameters`, { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false }, components));
        parts.push('query');
      }
      const ok = Object.entries(op.responses ?? {}).find(([status]) => /^2\d\d$/.test(status))?.[1]?.content?.['application/json']?.schema;
      if (ok) {
        out.set(`${op.operationId}.response.schema.json`, document(`${op.operationId}.response`, `${method.toUpperCase()} ${route} response body`, ok, components));
        parts.push('response');
      }
      if (parts.length > 0) index.push({ operation: op.operationId, method: method.toUpperCase(), path: route, parts });
    }
  }
  out.set('index.json', { description: 'Published JSON Schemas of svc REST bodies (docs/versioning.md). Generated from the served OpenAPI; do not edit.', operations: index });
  return out;
}

export function serialize(schema: unknown): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}

/** The served document of this build (a throwaway app on a temporary state dir). */
export async function servedOpenApi(): Promise<OpenApiDocument> {
  const { createSvcApp } = await import('../app.ts');
  const { loadConfig } = await import('../config/load.ts');
  const { buildServer } = await import('./server.ts');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-schemas-'));
  const env = { SVC_STATE_DIR: dir, SVC_LOCAL_API_KEY: 'schema-generator-key-0123456789', SVC_LOG_LEVEL: 'error' };
  const app = await createSvcApp(loadConfig({ env, overrides: { 'server.port': 0 } }), { env });
  try {
    const server = await buildServer(app);
    await server.ready();
    const doc = server.swagger() as unknown as OpenApiDocument;
    await server.close();
    return JSON.parse(JSON.stringify(doc)) as OpenApiDocument;
  } finally {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--write')) {
  const schemas = restSchemasFrom(await servedOpenApi());
  rmSync(REST_SCHEMAS_DIR, { recursive: true, force: true });
  mkdirSync(REST_SCHEMAS_DIR, { recursive: true });
  for (const [name, schema] of schemas) writeFileSync(path.join(REST_SCHEMAS_DIR, name), serialize(schema));
  console.log(`wrote ${readdirSync(REST_SCHEMAS_DIR).length} files to ${REST_SCHEMAS_DIR}`);
}
