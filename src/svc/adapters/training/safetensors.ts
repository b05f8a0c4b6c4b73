/**
 * safetensors layout (https://huggingface.co/docs/safetensors): an 8-byte
 * little-endian header length N, N bytes of JSON `{name: {dtype, shape,
 * data_offsets: [begin, end]}, __metadata__?}`, then the tensor data with
 * offsets relative to 8 + N. Parsed strictly: the tensors must cover the data
 * exactly, without holes or overlaps, as the format requires.
 */
import { createHash } from 'node:crypto';
import { SvcError } from '../../errors.ts';

const DTYPE_BYTES: Record<string, number> = { BOOL: 1, U8: 1, I8: 1, F8_E5M2: 1, F8_E4M3: 1, I16: 2, U16: 2, F16: 2, BF16: 2, I32: 4, U32: 4, F32: 4, F64: 8, I64: 8, U64: 8 };
const MAX_HEADER = 100 * 1024 * 1024;

export interface TensorFacts {
  name: string;
  dtype: string;
  shape: number[];
  /** Absolute offsets in the file. */
  begin: number;
  end: number;
  sha256: string;
}

export interface CheckpointLayout {
  header_bytes: number;
  tensors: TensorFacts[];
  /** Where a chunk must end so each tensor chunks on its own: the header end and every tensor end. */
  boundaries: number[];
}

const bad = (why: string) => new SvcError('invalid_request', `not a valid safetensors file: ${why}`, { details: { field: 'body_base64' } });

export function parseSafetensors(bytes: Uint8Array): CheckpointLayout {
  if (bytes.byteLength < 8) throw bad('shorter than its 8-byte header length');
  const n = Number(Buffer.from(bytes.buffer, bytes.byteOffset, 8).readBigUInt64LE(0));
  if (n < 2 || n > MAX_HEADER || 8 + n > bytes.byteLength) throw bad(`header length ${n} does not fit the file`);
  let header: unknown;
  try {
    header = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset + 8, n).toString('utf8'));
  } catch {
    throw bad('the header is not JSON');
  }
  if (header === null || typeof header !== 'object' || Array.isArray(header)) throw bad('the header is not a JSON object');
  const dataStart = 8 + n;
  const dataLen = bytes.byteLength - dataStart;
  const tensors: TensorFacts[] = [];
  for (const [name, v] of Object.entries(header as Record<string, unknown>)) {
    if (name === '__metadata__') continue;
    const t = v as { dtype?: unknown; shape?: unknown; data_offsets?: unknown };
    if (typeof t?.dtype !== 'string' || !(t.dtype in DTYPE_BYTES)) throw bad(`tensor ${JSON.stringify(name.slice(0, 64))} has an unknown dtype`);
    if (!Array.isArray(t.shape) || !t.shape.every((d) => Number.isInteger(d) && d >= 0)) throw bad(`tensor ${JSON.stringify(name.slice(0, 64))} has a bad shape`);
    const off = t.data_offsets;
    if (!Array.isArray(off) || off.length !== 2 || !off.every((o) => Number.isInteger(o) && o >= 0) || off[0] > off[1] || off[1] > dataLen) throw bad(`tensor ${JSON.stringify(name.slice(0, 64))} has bad data_offsets`);
    const elements = (t.shape as number[]).reduce((a, d) => a * d, 1);
    if (elements * DTYPE_BYTES[t.dtype]! !== off[1] - off[0]) throw bad(`tensor ${JSON.stringify(name.slice(0, 64))}: shape and dtype do not match its byte length`);
    const begin = dataStart + (off[0] as number);
    const end = dataStart + (off[1] as number);
    tensors.push({ name, dtype: t.dtype, shape: t.shape as number[], begin, end, sha256: createHash('sha256').update(bytes.subarray(begin, end)).digest('hex') });
  }
  tensors.sort((a, b) => a.begin - b.begin || a.end - b.end);
  let at = dataStart;
  for (const t of tensors) {
    if (t.begin !== at) throw bad('tensor data has holes or overlaps');
    at = t.end;
  }
  if (at !== bytes.byteLength) throw bad('bytes after the last tensor');
  const boundaries = [dataStart, ...tensors.map((t) => t.end)].filter((b, i, all) => b > 0 && b < bytes.byteLength && all.indexOf(b) === i);
  return { header_bytes: dataStart, tensors, boundaries };
}
