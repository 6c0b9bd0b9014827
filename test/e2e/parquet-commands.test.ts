import { DuckDBInstance } from '@duckdb/node-api';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runData } from '../hub/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'data-parquet-cli-'));
const file = join(dir, 'weather.parquet');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  await connection.run(
    `COPY (SELECT * FROM (VALUES (1::BIGINT, 'Zürich', DATE '2024-01-03', 1.5::DOUBLE), (2, NULL, NULL, -2.25)) t(id, city, day, rain)) TO '${file}' (FORMAT parquet)`,
  );
  connection.closeSync();
});

it('data cat prints a Parquet table, and data info its fields with their types', async () => {
  const cat = await runData(['cat', file]);
  expect(cat.code).toBe(0);
  expect(cat.out).toBe('id,city,day,rain\n1,Zürich,2024-01-03,1.5\n2,,,-2.25\n');
  const info = await runData(['--json', 'info', file]);
  expect(info.code).toBe(0);
  const fields = (
    JSON.parse(info.out) as { resources: { fields?: { name: string; type: string }[] }[] }
  ).resources[0]?.fields;
  expect(fields?.map((field) => field.type)).toEqual(['integer', 'string', 'date', 'number']);
});
