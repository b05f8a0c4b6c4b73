/**
 * The attr audit soak: N attributions through the real service while the
 * audit log is rotated R times by the documented procedure
 * (`attr-service-audit-rotate --config`, which signals the running service).
 * It then checks that nothing acknowledged was lost: every 200 response's
 * event id is in exactly one audit entry, the entry count equals the number
 * of acknowledged attributions, and `attr-service-audit-verify` passes with
 * the expected head of every closed segment and of the final log.
 *
 * `npm run soak -- attr [--attributions 100000] [--rotations 2] [--concurrency 16]`
 * (not in `npm test`; a 2,000-attribution version runs there: soak/attr-soak.test.ts).
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AuditEntry } from '../src/attr/audit/audit-entry.ts';
import { closedSegments } from '../src/attr/audit/audit-segments.ts';
import { REPO_ROOT, startServiceProcess } from '../src/attr/smoke/service-process.ts';

export interface SoakOptions {
  attributions: number;
  rotations: number;
  concurrency: number;
  log?: (line: string) => void;
}

export interface SoakResult {
  attributions_requested: number;
  acknowledged: number;
  refused: number;
  audit_entries: number;
  acknowledged_missing_from_log: number;
  duplicate_event_ids_in_log: number;
  segments: Array<{ path: string; entries: number; expect_head: string; verify_exit: number }>;
  final_expect_head: string;
  final_verify_exit: number;
  rotations: number;
  duration_s: number;
  attributions_per_s: number;
  passed: boolean;
}

function bin(name: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(REPO_ROOT, 'bin', `${name}.mjs`), ...args], { env: { PATH: process.env.PATH ?? '' }, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}

const PROMPTS = ['How far do honeybees forage?', 'What is a sourdough starter?', 'Do street trees cool cities?', 'How do honeybees communicate?'];

async function entriesOf(file: string): Promise<AuditEntry[]> {
  const text = await readFile(file, 'utf8');
  return text.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as AuditEntry);
}

export async function runAttrSoak(options: SoakOptions): Promise<SoakResult> {
  const log = options.log ?? (() => undefined);
  const svc = await startServiceProcess({
    // The soak is about the audit log, not the rate limiter: one client sends everything.
    configure: (d) => void (d.rate_limit = { window_ms: 1_000, max_requests: 1_000_000 }),
  });
  const started = performance.now();
  const ackedEvents = new Set<string>();
  let refused = 0;
  let issued = 0;
  let done = 0;
  const rotationAt = Array.from({ length: options.rotations }, (_, i) => Math.floor(((i + 1) * options.attributions) / (options.rotations + 1)));
  const checkpoints: string[] = [];
  let rotating: Promise<void> = Promise.resolve();
  try {
    const worker = async (): Promise<void> => {
      while (issued < options.attributions) {
        const n = issued++;
        const res = await svc.request('/v1/attribute', { auth: true, json: { prompt: PROMPTS[n % PROMPTS.length], gross_revenue: `${(n % 997) + 1}.00` } });
        if (res.status === 200) {
          const body = (await res.json()) as { event: { event_id: string } };
          ackedEvents.add(body.event.event_id);
        } else {
          await res.arrayBuffer();
          refused++;
        }
        done++;
        if (rotationAt.length > 0 && done >= rotationAt[0]!) {
          rotationAt.shift();
          // The documented procedure, concurrently with traffic.
          rotating = rotating.then(async () => {
            const r = await bin('attr-service-audit-rotate', ['--config', svc.configPath]);
            if (r.code !== 0) throw new Error(`rotation failed: ${r.stderr}`);
            const out = JSON.parse(r.stdout) as { expect_head: string; segment: number };
            checkpoints.push(out.expect_head);
            log(`rotated: segment ${out.segment} closed at ${out.expect_head.slice(0, 20)}… after ${done} attributions`);
          });
        }
        if (done % 10_000 === 0) log(`${done} attributions`);
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, worker));
    await rotating;
    const metrics = (await (await svc.request('/v1/metrics', { auth: true })).json()) as { audit_head: { seq: number; hash: string } };
    const finalHead = `${metrics.audit_head.seq}:${metrics.audit_head.hash}`;
    const duration = (performance.now() - started) / 1000;
    // Stop the service (SIGTERM drains queued entries) but keep its files for verification.
    svc.child.kill('SIGTERM');
    await new Promise((r) => svc.child.once('exit', r));

    const files = [...(await closedSegments(svc.auditLogPath)).map((s) => s.path), svc.auditLogPath];
    const logged = new Map<string, number>();
    const segments: SoakResult['segments'] = [];
    let total = 0;
    for (const [i, file] of files.entries()) {
      const entries = await entriesOf(file);
      total += entries.length;
      for (const e of entries) if (e.record.event_id) logged.set(e.record.event_id, (logged.get(e.record.event_id) ?? 0) + 1);
      if (i < checkpoints.length) {
        const verify = await bin('attr-service-audit-verify', ['--config', svc.configPath, '--expect-head', checkpoints[i]!]);
        segments.push({ path: path.basename(file), entries: entries.length, expect_head: checkpoints[i]!, verify_exit: verify.code });
      } else {
        segments.push({ path: path.basename(file), entries: entries.length, expect_head: finalHead, verify_exit: -1 });
      }
    }
    const finalVerify = await bin('attr-service-audit-verify', ['--config', svc.configPath, '--expect-head', finalHead]);
    segments[segments.length - 1]!.verify_exit = finalVerify.code;
    const missing = [...ackedEvents].filter((id) => !logged.has(id)).length;
    const duplicates = [...logged.values()].filter((c) => c > 1).length;
    const result: SoakResult = {
      attributions_requested: options.attributions,
      acknowledged: ackedEvents.size,
      refused,
      audit_entries: total,
      acknowledged_missing_from_log: missing,
      duplicate_event_ids_in_log: duplicates,
      segments,
      final_expect_head: finalHead,
      final_verify_exit: finalVerify.code,
      rotations: checkpoints.length,
      duration_s: Math.round(duration * 10) / 10,
      attributions_per_s: Math.round(options.attributions / duration),
      passed: false,
    };
    result.passed =
      refused === 0 && missing === 0 && duplicates === 0 && total === ackedEvents.size && ackedEvents.size === options.attributions &&
      checkpoints.length === options.rotations && segments.every((s) => s.verify_exit === 0) && metrics.audit_head.seq === total;
    return result;
  } finally {
    await svc.stop();
  }
}
