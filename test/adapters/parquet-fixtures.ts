/** Deterministic Parquet files for the lakehouse adapter tests and bench (hyparquet-writer, dev dependency). */
import { parquetWriteBuffer } from 'hyparquet-writer';

export interface OrdersOptions {
  rows: number;
  /** Row offset: appends continue the id sequence. */
  from?: number;
  /** Rows per row group: a different layout gives different bytes for the same table. */
  rowGroupSize?: number;
  /** Changes the amount of one row: same schema and row count, different table. */
  tamperRow?: number;
}

export function ordersTable(o: OrdersOptions): Buffer {
  const from = o.from ?? 0;
  const ids: bigint[] = [];
  const customers: string[] = [];
  const amounts: number[] = [];
  for (let i = from; i < from + o.rows; i++) {
    ids.push(BigInt(i));
    customers.push(`customer-${(i * 7919) % 1009}`);
    amounts.push(((i * 104729) % 100_000) / 100 + (o.tamperRow === i ? 0.01 : 0));
  }
  const ab = parquetWriteBuffer({
    columnData: [
      { name: 'id', data: ids, type: 'INT64' },
      { name: 'customer', data: customers, type: 'STRING' },
      { name: 'amount', data: amounts, type: 'DOUBLE' },
    ],
    ...(o.rowGroupSize ? { rowGroupSize: o.rowGroupSize } : {}),
  });
  return Buffer.from(ab);
}
