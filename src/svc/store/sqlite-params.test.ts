/**
 * The `$n` placeholders of the one SQL interface on SQLite: bound as anonymous
 * `?` in the order the statement takes them (decision 179), so a parameter
 * used twice, out of order, or in a many-row INSERT gets the right value.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SqliteDb } from './sqlite-db.ts';

test('out-of-order and repeated $n placeholders each take the right value', async (t) => {
  const db = new SqliteDb(':memory:');
  t.after(() => db.close());
  const row = await db.get<{ a: string; b: number; b_again: number; c: string | null }>('SELECT $2 AS b, $1 AS a, $2 AS b_again, $3 AS c', ['one', 2, null]);
  assert.deepEqual({ ...row }, { b: 2, a: 'one', b_again: 2, c: null });
  const values = await db.values('SELECT $3, $1', ['x', 'unused', 'z']);
  assert.deepEqual(values, [['z', 'x']]);
});

test('a many-row INSERT sharing some parameters across rows stores every row exactly', async (t) => {
  const db = new SqliteDb(':memory:');
  t.after(() => db.close());
  await db.exec('CREATE TABLE entries (scope TEXT, id TEXT, pack TEXT, n INTEGER)');
  const rows = 300;
  const params: Array<string | number> = ['scope-a', 'pack-1'];
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) {
    params.push(`id-${r}`, r * 7);
    const n = params.length;
    tuples.push(`($1, $${n - 1}, $2, $${n})`);
  }
  const { changes } = await db.run(`INSERT INTO entries VALUES ${tuples.join(', ')}`, params);
  assert.equal(changes, rows);
  const stored = await db.all<{ scope: string; id: string; pack: string; n: number }>('SELECT scope, id, pack, n FROM entries ORDER BY n');
  assert.equal(stored.length, rows);
  stored.forEach((s, r) => assert.deepEqual({ ...s }, { scope: 'scope-a', id: `id-${r}`, pack: 'pack-1', n: r * 7 }));
});
