/**
 * Byte ranges with HTTP semantics (RFC 9110 §14.1.2): positions are
 * zero-based, `end` is inclusive, an open range (`start` only) runs to the
 * last byte, a suffix range names the last N bytes, an `end` past the object
 * is clamped, and a range that starts past the last byte is unsatisfiable
 * (416-style `range_not_satisfiable`, with the object size in the details so
 * a client can build `Content-Range: bytes *\/size`).
 */
import { SvcError } from '../errors.ts';

/** A requested range: `{ start, end? }` (inclusive end; open when omitted) or `{ suffix }` (the last N bytes). */
export type ByteRangeRequest = { start: number; end?: number } | { suffix: number };

/** A satisfiable range inside an object: `start..end`, both inclusive. */
export interface ResolvedRange {
  start: number;
  end: number;
}

function invalid(message: string): SvcError {
  return new SvcError('invalid_request', message, { details: { field: 'range' } });
}

function checkPosition(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw invalid(`range ${name} must be an integer`);
  if (value < 0) throw invalid(`range ${name} must not be negative`);
  return value;
}

/**
 * The concrete range of an object of `size` bytes.
 * @throws SvcError `invalid_request` (negative, non-integer, start after end) or `range_not_satisfiable`
 */
export function resolveRange(request: ByteRangeRequest, size: number): ResolvedRange {
  const unsatisfiable = (): SvcError =>
    new SvcError('range_not_satisfiable', `range is outside the object (${size} bytes)`, { details: { size } });
  if ('suffix' in request) {
    const suffix = checkPosition(request.suffix, 'suffix');
    if (suffix === 0 || size === 0) throw unsatisfiable();
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = checkPosition(request.start, 'start');
  const end = request.end === undefined ? undefined : checkPosition(request.end, 'end');
  if (end !== undefined && end < start) throw invalid('range end must not be before its start');
  if (start >= size) throw unsatisfiable();
  return { start, end: end === undefined ? size - 1 : Math.min(end, size - 1) };
}

/** Number of bytes in a resolved range. */
export function rangeLength(range: ResolvedRange): number {
  return range.end - range.start + 1;
}

/**
 * Parses an HTTP `Range` header value with a single range: `bytes=0-99`,
 * `bytes=100-`, `bytes=-500`. Multiple ranges are not supported.
 * @throws SvcError `invalid_request`
 */
export function parseRangeHeader(value: string): ByteRangeRequest {
  const match = /^bytes=(\d*)-(\d*)$/.exec(value.trim());
  if (!match) throw invalid('range header must look like bytes=START-END, bytes=START- or bytes=-SUFFIX');
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') throw invalid('range header names no bytes');
  if (first === '') return { suffix: Number(last) };
  return last === '' ? { start: Number(first) } : { start: Number(first), end: Number(last) };
}

/** `Content-Range` header value for a partial response. */
export function contentRangeHeader(range: ResolvedRange, size: number): string {
  return `bytes ${range.start}-${range.end}/${size}`;
}
