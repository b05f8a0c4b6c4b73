/**
 * Versioning 2: the served OpenAPI, the published JSON Schemas
 * (schemas/rest/, schemas/svc-config.schema.json) and the protobuf agree.
 * Fails when a route's schema changed without `node src/svc/http/rest-schemas.ts
 * --write`, when a published schema does not compile, or when a REST body and
 * its gRPC request message name different fields.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import protobuf from 'protobufjs';
import { type OpenApiDocument, REST_SCHEMAS_DIR, restSchemasFrom, serialize } from '../../src/svc/http/rest-schemas.ts';
import { type TestServer, startTestServer } from '../helpers/server.ts';

const PROTO = path.resolve(import.meta.dirname, '../../proto/svc/v1/svc.proto');

/** REST operation → the gRPC request message carrying the same body (and the field holding it, when nested). */
const REST_TO_PROTO: Array<{ operation: string; message: string; via?: string }> = [
  { operation: 'postV1WorkUnits', message: 'svc.v1.WorkUnitServiceCreateRequest', via: 'work_unit' },
  { operation: 'postV1S3Objects', message: 'svc.v1.ObjectGatewayServicePutRequest' },
  { operation: 'postV1S3ObjectsHead', message: 'svc.v1.ObjectGatewayServiceHeadRequest' },
  { operation: 'postV1S3ObjectsList', message: 'svc.v1.ObjectGatewayServiceListRequest' },
  { operation: 'postV1S3ObjectsDelete', message: 'svc.v1.ObjectGatewayServiceDeleteRequest' },
  { operation: 'postV1CacheStore', message: 'svc.v1.CacheServiceStoreRequest' },
  { operation: 'postV1CacheExactLookup', message: 'svc.v1.CacheServiceExactLookupRequest' },
  { operation: 'postV1LedgerQuery', message: 'svc.v1.LedgerServiceQueryRequest' },
  { operation: 'postV1PoliciesValidate', message: 'svc.v1.PolicyServiceValidateRequest' },
  { operation: 'postV1PoliciesEvaluate', message: 'svc.v1.PolicyServiceEvaluateRequest' },
  { operation: 'postV1SchedulerJobs', message: 'svc.v1.SchedulerJobRequest' },
  { operation: 'postV1SchedulerPlan', message: 'svc.v1.SchedulerJobRequest' },
  { operation: 'postV1SchedulerForecasts', message: 'svc.v1.SchedulerServiceLoadForecastRequest' },
];

describe('schema drift: served OpenAPI, published JSON Schemas, protobuf', () => {
  let s: TestServer;
  let openapi: OpenApiDocument;
  before(async () => {
    s = await startTestServer({ engine: 'sqlite' });
    openapi = (await (await fetch(`${s.url}/openapi.json`)).json()) as OpenApiDocument;
  });
  after(async () => {
    await s.close();
  });

  test('schemas/rest/ is exactly what the served OpenAPI declares', () => {
    const expected = restSchemasFrom(openapi);
    const onDisk = readdirSync(REST_SCHEMAS_DIR).sort();
    const hint = 'run `node src/svc/http/rest-schemas.ts --write` and commit schemas/rest/';
    assert.deepEqual(onDisk, [...expected.keys()].sort(), `published files differ from the served operations: ${hint}`);
    for (const [name, schema] of expected) assert.equal(readFileSync(path.join(REST_SCHEMAS_DIR, name), 'utf8'), serialize(schema), `${name} drifted from the served OpenAPI: ${hint}`);
  });

  test('every published schema (REST bodies and configuration) compiles as JSON Schema 2020-12', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats.default(ajv);
    const files = readdirSync(REST_SCHEMAS_DIR).filter((f) => f.endsWith('.schema.json'));
    assert.ok(files.length > 40, `only ${files.length} REST schemas published`);
    for (const f of files) assert.doesNotThrow(() => ajv.compile(JSON.parse(readFileSync(path.join(REST_SCHEMAS_DIR, f), 'utf8'))), f);
    const config = ajv.compile(JSON.parse(readFileSync(path.resolve(REST_SCHEMAS_DIR, '../svc-config.schema.json'), 'utf8')));
    assert.equal(config({ restore_tests: { interval_minutes: 60 } }), true);
    assert.equal(config({ restore_tests: { interval_minutes: -1 } }), false);
    // A published request schema accepts what the server accepts and refuses what it refuses.
    const put = ajv.getSchema('https://schemas.svc.dev/rest/v1/postV1S3Objects.request.schema.json')!;
    assert.equal(put({ bucket: 'demo', key: 'a.txt', body_text: 'hi' }), true);
    assert.equal(put({ bucket: 'demo', key: 'a.txt', body_text: 'hi', verifier_passed: true }), false);
  });

  test('REST bodies and their gRPC request messages name the same fields', async () => {
    const root = new protobuf.Root();
    await root.load(PROTO, { keepCase: true });
    for (const pair of REST_TO_PROTO) {
      const schema = JSON.parse(readFileSync(path.join(REST_SCHEMAS_DIR, `${pair.operation}.request.schema.json`), 'utf8')) as { properties?: Record<string, unknown> };
      let message = root.lookupType(pair.message);
      if (pair.via) message = message.fields[pair.via]!.resolve().resolvedType as protobuf.Type;
      const rest = Object.keys(schema.properties ?? {}).sort();
      const grpc = Object.keys(message.fields).sort();
      assert.deepEqual(grpc, rest, `${pair.operation} (REST) and ${message.name} (gRPC) drifted apart`);
    }
  });
});
