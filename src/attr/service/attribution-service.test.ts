import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AuditLog, type AppendOptions } from '../audit/audit-log.ts';
import type { AuditRecord } from '../audit/audit-entry.ts';
import { configFromTemplate } from '../config/config-template.ts';
import { parseServiceConfig } from '../config/service-config.ts';
import type { AttributeInput } from '../engine/index.ts';
import { verifyAuditLogFile } from '../audit/verify-audit-log.ts';
import type { AttributionResult, AttributionRunner } from './attribution-runner.ts';
import { AttributionService } from './attribution-service.ts';
import { ServiceMetrics } from './service-metrics.ts';

/** A runner whose attributions finish when the test says so. */
class HeldRunner implements AttributionRunner {
  readonly workers = 1;
  readonly held: Array<{ input: AttributeInput; finish: () => void }> = [];
  attribute(input: AttributeInput): Promise<AttributionResult> {
    return new Promise((resolve) => {
      this.held.push({
        input,
        finish: () =>
          resolve({
            engineMs: 2.5,
            summary: { status: 'ready', eventId: input.context.eventId, eventHash: 'e'.repeat(64), eventCreatedAt: input.context.createdAt, footerHash: 'f'.repeat(64), sourceCount: 1, auditErrorCount: 0, answerSha256: 'a'.repeat(64) },
            body: Promise.resolve(Buffer.from(`{"request":"${input.context.requestId}"}`)),
          }),
      });
    });
  }
  problem(): undefined {
    return undefined;
  }
  async close(): Promise<void> {}
}

async function setup(dir: string) {
  const configPath = path.join(dir, 'attr-service.json');
  const document = configFromTemplate('default', { corpusPath: path.join(dir, 'corpus.jsonl'), auditLogPath: path.join(dir, 'audit.jsonl'), artifactDir: path.join(dir, 'artifacts'), outputPath: configPath });
  const config = parseServiceConfig(JSON.stringify(document), configPath);
  const auditLog = await AuditLog.open(config.auditLogPath, { fsync: 'per_batch' });
  const hints: Array<{ requestId: string; alone: boolean | undefined }> = [];
  const append = auditLog.append.bind(auditLog);
  auditLog.append = (record: AuditRecord, options?: AppendOptions) => {
    hints.push({ requestId: record.request_id, alone: options?.alone });
    return append(record, options);
  };
  const runner = new HeldRunner();
  const metrics = new ServiceMetrics({ providerRouteCount: 0, auditHead: () => ({ seq: 0, hash: '0'.repeat(64), segment: 1 }) });
  const service = new AttributionService({ config, runner, auditLog, gate: { ready: true }, metrics, env: {} });
  return { service, runner, auditLog, hints };
}

const request = { prompt: 'q', output: 'an answer', gross_revenue: '1.00' };

/** Lets the service reach the runner (microtasks only). */
const settle = () => new Promise<void>((r) => setImmediate(r));

test('the audit entry of the only attribution in flight is appended alone; overlapping ones are grouped', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attr-service-'));
  try {
    const { service, runner, auditLog, hints } = await setup(dir);
    // Two at once: the first to finish has company, so its entry may share a batch.
    const first = service.attribute(request, 'req-1');
    const second = service.attribute(request, 'req-2');
    await settle();
    runner.held[0]!.finish();
    const released = await first;
    assert.deepEqual(JSON.parse(released.body.toString()), { request: 'req-1' });
    // Where its time went: the engine as the runner timed it, the rest measured here, none negative.
    assert.equal(released.timing.engine, 2.5);
    for (const [name, ms] of Object.entries(released.timing)) assert.ok(ms >= 0 && Number.isFinite(ms), name);
    assert.ok(released.timing.total >= released.timing.audit + released.timing.body);
    // Now alone: nothing else can join its batch.
    runner.held[1]!.finish();
    await second;
    // One at a time: alone.
    const third = service.attribute(request, 'req-3');
    await settle();
    runner.held[2]!.finish();
    await third;
    assert.deepEqual(hints, [
      { requestId: 'req-1', alone: false },
      { requestId: 'req-2', alone: true },
      { requestId: 'req-3', alone: true },
    ]);
    await auditLog.close();
    const report = await verifyAuditLogFile(auditLog.path);
    assert.equal(report.ok, true);
    assert.equal(report.head_seq, 3);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a refusal logged with nothing else in flight is appended alone too', async () => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attr-service-'));
  try {
    const { service, auditLog, hints } = await setup(dir);
    // A lone surrogate is refused before the engine; its refusal entry is appended alone.
    await assert.rejects(service.attribute({ ...request, output: '\ud800' }, 'req-bad'), { code: 'invalid_unicode' });
    assert.deepEqual(hints, [{ requestId: 'req-bad', alone: true }]);
    await auditLog.close();
    assert.equal((await verifyAuditLogFile(auditLog.path)).head_seq, 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
