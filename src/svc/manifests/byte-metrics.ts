/**
 * The byte counters of a written manifest (spec: Metrics): bytes in and
 * stored, chunks and dedupe hits, bytes avoided by reason, and the lifetime
 * stored/in ratio. Process-local, for Prometheus and the alerts; reports use
 * the manifest rows instead (docs/reports.md).
 */
import type { SvcMetrics } from '../observability/metrics.ts';
import type { ByteManifest } from './manifest.ts';

const totals = new WeakMap<SvcMetrics, { bytesIn: number; stored: number }>();

export function recordByteMetrics(metrics: SvcMetrics, m: ByteManifest): void {
  metrics.bytesIn.inc(m.bytes_in);
  metrics.bytesStored.inc(m.bytes_stored);
  metrics.chunks.inc(m.chunks.length);
  metrics.chunkDedupeHits.inc(m.stats.chunks_reused);
  if (m.mode === 'enforce') {
    metrics.bytesAvoided.inc({ reason: 'dedupe' }, m.stats.bytes_deduplicated);
    metrics.bytesAvoided.inc({ reason: 'compression' }, m.stats.bytes_saved_by_compression);
  }
  const t = totals.get(metrics) ?? { bytesIn: 0, stored: 0 };
  t.bytesIn += m.bytes_in;
  t.stored += m.bytes_stored;
  totals.set(metrics, t);
  if (t.bytesIn > 0) metrics.compressionRatio.set(t.stored / t.bytesIn);
}
