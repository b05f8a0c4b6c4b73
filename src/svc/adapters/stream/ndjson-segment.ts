/**
 * NDJSON / JSONL segments: split into records, read each record's time, and
 * find which part of a re-sent stream is new.
 */
import { createHash } from 'node:crypto';
import { SvcError } from '../../errors.ts';

/** Fields tried, in order, for a record's time when the request names none. */
export const DEFAULT_TIME_FIELDS = ['ts', 'time', 'timestamp', '@timestamp'] as const;

export interface SegmentFacts {
  records: number;
  /** Records without a readable time: a time-range read always includes their segment. */
  untimed: number;
  min_ts: string | null;
  max_ts: string | null;
}

/** A record time: ISO-8601 text, or epoch seconds / milliseconds (a number above 1e11 is milliseconds). */
export function recordTime(record: Record<string, unknown>, fields: readonly string[]): number | undefined {
  for (const f of fields) {
    const v = record[f];
    if (typeof v === 'number' && Number.isFinite(v)) return v > 1e11 ? v : v * 1000;
    if (typeof v === 'string') {
      const t = Date.parse(v);
      if (!Number.isNaN(t)) return t;
    }
  }
  return undefined;
}

/** Parses every line of a segment; a line that is not a JSON object, or a last line without `\n`, is a 400 naming the line. */
export function* records(bytes: Uint8Array): Generator<{ line: string; record: Record<string, unknown> }> {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  if (!text.endsWith('\n')) throw new SvcError('invalid_request', 'the segment must end with a newline: a stream stores whole records only', { details: { field: 'body' } });
  let start = 0;
  let n = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end).replace(/\r$/, '');
    start = end + 1;
    n++;
    if (line.trim() === '') continue;
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      throw new SvcError('invalid_request', `line ${n} is not JSON`, { details: { line: n } });
    }
    if (record === null || typeof record !== 'object' || Array.isArray(record)) throw new SvcError('invalid_request', `line ${n} is not a JSON object`, { details: { line: n } });
    yield { line, record: record as Record<string, unknown> };
  }
}

export function segmentFacts(bytes: Uint8Array, fields: readonly string[]): SegmentFacts {
  let count = 0;
  let untimed = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const { record } of records(bytes)) {
    count++;
    const t = recordTime(record, fields);
    if (t === undefined) untimed++;
    else {
      min = Math.min(min, t);
      max = Math.max(max, t);
    }
  }
  if (count === 0) throw new SvcError('invalid_request', 'the segment holds no records', { details: { field: 'body' } });
  return { records: count, untimed, min_ts: Number.isFinite(min) ? new Date(min).toISOString() : null, max_ts: Number.isFinite(max) ? new Date(max).toISOString() : null };
}

export interface StoredSegment {
  offset: number;
  bytes: number;
  sha256: string;
}

/**
 * How much of `body` the stream already holds. A client may re-send the whole
 * log (a growing file) or only new records: when the body starts with every
 * stored segment, byte for byte (sha256 per segment at its offset), only the
 * rest is new. A body that starts with the stream's first segment but then
 * diverges rewrites history: refused (`conflict`), the stream is append-only.
 */
export function alreadyStored(body: Uint8Array, segments: readonly StoredSegment[]): number {
  let matched = 0;
  for (const s of segments) {
    if (body.byteLength < s.offset + s.bytes) break;
    const digest = createHash('sha256').update(body.subarray(s.offset, s.offset + s.bytes)).digest('hex');
    if (digest !== s.sha256) break;
    matched++;
  }
  if (matched === 0) return 0;
  if (matched < segments.length) {
    throw new SvcError('conflict', `the body repeats the stream's first ${matched} segment(s) and then differs from segment ${matched + 1}: streams are append-only`);
  }
  const last = segments[segments.length - 1]!;
  return last.offset + last.bytes;
}
