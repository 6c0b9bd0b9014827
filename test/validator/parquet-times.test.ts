/**
 * Times of day in Parquet (TIME: INT32 milliseconds, INT64 microseconds), as DuckDB writes
 * them and as the hub's Parquet copies do, are read as times.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRows } from '../../packages/core/src/validator/rows.js';
import { check, summary } from '../helpers/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'data-parquet-times-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Parquet times of day', () => {
  it('are read as times, to the millisecond, null as missing', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const connection = await db.connect();
    await connection.run(
      `COPY (SELECT * FROM (VALUES (1, TIME '10:30:00'), (2, TIME '23:59:59.250'), (3, NULL)) t(id, "at"))
       TO '${join(dir, 'times.parquet')}' (FORMAT parquet)`,
    );
    connection.closeSync();
    const fields = [
      { name: 'id', type: 'integer' },
      { name: 'at', type: 'time' },
    ];
    writeFileSync(
      join(dir, 'datapackage.json'),
      JSON.stringify({
        name: 'times',
        resources: [{ name: 'times', path: 'times.parquet', schema: { fields } }],
      }),
    );
    expect(summary(await check(dir))).toEqual([]);
    const rows: unknown[][] = [];
    await readRows(
      { name: 'times', path: 'times.parquet', schema: { fields } },
      { dir },
      { typed: 'comparable', fetch: () => Promise.reject(new Error('local only')) },
      { labels: () => undefined, row: (values) => rows.push([...values]), open: true },
    );
    expect(rows).toEqual([
      [1, '10:30:00'],
      [2, '23:59:59.250'],
      [3, null],
    ]);
  });
});
