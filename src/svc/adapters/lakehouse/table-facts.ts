/**
 * Logical facts of a Parquet table file, read with hyparquet: the schema, the
 * row count, a checksum per column over its decoded values, and a dataset
 * digest over all of them. Two files with different bytes (another writer,
 * compression or row-group layout) but the same rows have the same facts;
 * one changed value changes a column checksum. The restore test
 * "table logical verification" compares these facts, not only the bytes.
 */
import { createHash } from 'node:crypto';
import { parquetMetadata, parquetRead, parquetSchema } from 'hyparquet';
import { SvcError } from '../../errors.ts';

export interface TableColumnFacts {
  name: string;
  /** Physical type, with the logical/converted type when the file declares one (e.g. `INT64/TIMESTAMP_MILLIS`). */
  type: string;
  /** sha256 over the canonical encoding of every decoded value, in row order. */
  checksum: string;
}

export interface TableFacts {
  format: 'parquet';
  row_count: number;
  columns: TableColumnFacts[];
  /** sha256 over schema + row count + column checksums: equal digests are the same dataset, whatever the file bytes. */
  dataset_digest: string;
}

/** Canonical text of one decoded value: typed so that 1, 1n, "1" and true never collide. */
function canonical(v: unknown): string {
  if (v === null || v === undefined) return 'z';
  switch (typeof v) {
    case 'bigint':
      return `i${v}`;
    case 'number':
      return Number.isNaN(v) ? 'fNaN' : `f${Object.is(v, -0) ? '-0' : String(v)}`;
    case 'string':
      return `s${JSON.stringify(v)}`;
    case 'boolean':
      return v ? 'T' : 'F';
  }
  if (v instanceof Date) return `d${v.getTime()}`;
  if (v instanceof Uint8Array) return `b${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('hex')}`;
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`).join(',')}}`;
  }
  return `?${String(v)}`;
}

function typeOf(el: { type?: string; converted_type?: string; logical_type?: { type: string } }): string {
  const logical = el.logical_type?.type ?? el.converted_type;
  return logical ? `${el.type ?? 'GROUP'}/${logical}` : (el.type ?? 'GROUP');
}

/** Reads a whole Parquet file and returns its facts; not Parquet or unreadable → `invalid_request` (nothing is stored). */
export async function computeTableFacts(bytes: Uint8Array): Promise<TableFacts> {
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let metadata;
  try {
    metadata = parquetMetadata(file);
  } catch (err) {
    throw new SvcError('invalid_request', `not a readable Parquet file: ${(err as Error).message}`.slice(0, 300));
  }
  const schema = parquetSchema(metadata);
  const names = schema.children.map((c) => c.element.name);
  const types = schema.children.map((c) => typeOf(c.element as never));
  const rowCount = Number(metadata.num_rows);
  // One column at a time, so memory holds one decoded column, not the table. Chunks arrive per row range,
  // not necessarily in order: collected, then hashed in row order.
  const columns: TableColumnFacts[] = [];
  for (const [i, name] of names.entries()) {
    const chunks: { rowStart: number; data: ArrayLike<unknown> }[] = [];
    try {
      await parquetRead({ file, metadata, columns: [name], onChunk: ({ columnName, columnData, rowStart }) => void (columnName === name && chunks.push({ rowStart, data: columnData })) });
    } catch (err) {
      throw new SvcError('invalid_request', `Parquet file could not be decoded: ${(err as Error).message}`.slice(0, 300));
    }
    const h = createHash('sha256');
    let rows = 0;
    // One hash update per batch of values: a native call per value costs more than the decode itself.
    let batch: string[] = [];
    for (const c of chunks.sort((a, b) => a.rowStart - b.rowStart)) {
      for (let j = 0; j < c.data.length; j++) {
        batch.push(canonical(c.data[j]));
        rows++;
        if (batch.length === 8192) {
          h.update(`${batch.join('\n')}\n`);
          batch = [];
        }
      }
    }
    if (batch.length > 0) h.update(`${batch.join('\n')}\n`);
    if (rows !== rowCount) throw new SvcError('invalid_request', `Parquet column ${JSON.stringify(name).slice(0, 80)} decodes to ${rows} values, the footer says ${rowCount} rows`);
    columns.push({ name, type: types[i]!, checksum: h.digest('hex') });
  }
  const dataset_digest = createHash('sha256').update(JSON.stringify({ row_count: rowCount, columns })).digest('hex');
  return { format: 'parquet', row_count: rowCount, columns, dataset_digest };
}

/** Why `actual` is not the table `recorded` describes, or undefined when they are the same table. */
export function tableDifference(recorded: TableFacts, actual: TableFacts): string | undefined {
  if (recorded.row_count !== actual.row_count) return `row count ${actual.row_count}, recorded ${recorded.row_count}`;
  const schemaOf = (f: TableFacts) => f.columns.map((c) => `${c.name}:${c.type}`).join(',');
  if (schemaOf(recorded) !== schemaOf(actual)) return 'schema differs from the recorded schema';
  for (let i = 0; i < recorded.columns.length; i++) {
    if (recorded.columns[i]!.checksum !== actual.columns[i]!.checksum) return `column ${recorded.columns[i]!.name} checksum differs`;
  }
  if (recorded.dataset_digest !== actual.dataset_digest) return 'dataset digest differs';
  return undefined;
}
