/**
 * Checks proto/svc/v1/svc.proto's naming rules (those of `buf lint`'s
 * STANDARD category) over the descriptors @grpc/proto-loader builds, which is
 * what the server loads; the real `buf lint` and `buf breaking` run in
 * test/grpc/buf.test.ts. Also keeps the generated TypeScript types in step
 * with the .proto.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import * as protoLoader from '@grpc/proto-loader';
import { GENERATED_DIR, generateTypes } from '../../proto/generate-types.ts';
import { LOADER_OPTIONS, SVC_PROTO_FILE } from '../../src/svc/grpc/proto-package.ts';

const PACKAGE = 'svc.v1';
const definition = protoLoader.loadSync(SVC_PROTO_FILE, LOADER_OPTIONS);

interface FieldDescriptor {
  name: string;
}
interface MessageDescriptor {
  name: string;
  field: FieldDescriptor[];
  oneofDecl: Array<{ name: string }>;
}
interface EnumDescriptor {
  name: string;
  value: Array<{ name: string; number: number }>;
}
interface MethodDefinition {
  path: string;
  requestType: { type: MessageDescriptor };
  responseType: { type: MessageDescriptor };
}

const own = Object.entries(definition).filter(([name]) => name.startsWith(`${PACKAGE}.`));
const messages = own.flatMap(([, d]) => ((d as { format?: string }).format === 'Protocol Buffer 3 DescriptorProto' ? [(d as { type: MessageDescriptor }).type] : []));
const enums = own.flatMap(([, d]) => ((d as { format?: string }).format === 'Protocol Buffer 3 EnumDescriptorProto' ? [(d as { type: EnumDescriptor }).type] : []));
const services = own.flatMap(([name, d]) => ((d as { format?: string }).format === undefined ? [{ name: name.slice(PACKAGE.length + 1), methods: d as unknown as Record<string, MethodDefinition> }] : []));

const PASCAL = /^[A-Z][A-Za-z0-9]*$/;
const LOWER_SNAKE = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/;
const UPPER_SNAKE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;
const upperSnake = (pascal: string) => pascal.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2').toUpperCase();

describe('proto lint (buf STANDARD naming rules)', () => {
  test('the file lives in the directory of its versioned package', () => {
    assert.equal(path.dirname(SVC_PROTO_FILE), PACKAGE.replaceAll('.', '/'));
    assert.match(PACKAGE, /\.v\d+$/);
    assert.ok(messages.length > 0 && enums.length > 0, 'the descriptors were found');
    assert.deepEqual(services.map((s) => s.name).sort(), [
      'AIService', 'AdapterService', 'AdminService', 'ApprovalService', 'BenchmarkService', 'CacheService', 'LedgerService', 'ManifestService', 'ObjectGatewayService', 'ObservabilityService', 'PlanService', 'PluginService', 'PolicyService', 'SchedulerService', 'WorkUnitService',
    ]);
  });

  test('messages, enums and services are PascalCase; services end in Service', () => {
    for (const m of messages) assert.match(m.name, PASCAL, m.name);
    for (const e of enums) assert.match(e.name, PASCAL, e.name);
    for (const s of services) {
      assert.match(s.name, PASCAL, s.name);
      assert.ok(s.name.endsWith('Service'), `${s.name} ends in Service`);
    }
  });

  test('fields and oneofs are lower_snake_case', () => {
    for (const m of messages) {
      for (const f of m.field) assert.match(f.name, LOWER_SNAKE, `${m.name}.${f.name}`);
      // proto3 `optional` creates synthetic oneofs named `_<field>`; those are not declared names.
      for (const o of m.oneofDecl.filter((d) => !d.name.startsWith('_'))) assert.match(o.name, LOWER_SNAKE, `${m.name}.${o.name}`);
    }
  });

  test('enum values are UPPER_SNAKE_CASE, prefixed with the enum name, with a zero *_UNSPECIFIED value', () => {
    for (const e of enums) {
      const prefix = `${upperSnake(e.name)}_`;
      for (const v of e.value) {
        assert.match(v.name, UPPER_SNAKE, `${e.name}.${v.name}`);
        assert.ok(v.name.startsWith(prefix), `${v.name} starts with ${prefix}`);
      }
      assert.equal(e.value.find((v) => v.number === 0)?.name, `${prefix}UNSPECIFIED`, e.name);
    }
  });

  test('every RPC is PascalCase with its own <Service><Rpc>Request and Response messages', () => {
    const used = new Map<string, string>();
    for (const s of services) {
      for (const [rpc, method] of Object.entries(s.methods)) {
        assert.match(rpc, PASCAL, `${s.name}.${rpc}`);
        const req = method.requestType.type.name;
        const res = method.responseType.type.name;
        assert.ok([`${rpc}Request`, `${s.name}${rpc}Request`].includes(req), `${s.name}.${rpc} request ${req}`);
        assert.ok([`${rpc}Response`, `${s.name}${rpc}Response`].includes(res), `${s.name}.${rpc} response ${res}`);
        for (const type of [req, res]) {
          assert.equal(used.get(type), undefined, `${type} is used by ${used.get(type)} and ${s.name}.${rpc}`);
          used.set(type, `${s.name}.${rpc}`);
        }
      }
    }
  });
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir)
    .flatMap((name) => {
      const full = path.join(dir, name);
      return statSync(full).isDirectory() ? filesUnder(full).map((f) => path.join(name, f)) : [name];
    })
    .sort();
}

describe('generated types', () => {
  test('src/svc/grpc/generated is what `node proto/generate-types.ts` produces from the current .proto', () => {
    const out = mkdtempSync(path.join(os.tmpdir(), 'svc-proto-gen-'));
    try {
      generateTypes(out);
      const expected = filesUnder(out);
      assert.deepEqual(filesUnder(GENERATED_DIR), expected, 'the same files (run: node proto/generate-types.ts)');
      for (const file of expected) {
        assert.equal(readFileSync(path.join(GENERATED_DIR, file), 'utf8'), readFileSync(path.join(out, file), 'utf8'), `${file} is up to date (run: node proto/generate-types.ts)`);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
