/**
 * Parquet tables, written here by DuckDB (an independent writer) and checked with every
 * check a CSV table gets.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFile } from '../../packages/core/src/validator/index.js';
import { check, summary } from '../helpers/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'data-parquet-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROWS = `(VALUES
  (1::BIGINT, 'Zürich', DATE '2024-01-03', TIMESTAMP '2024-01-03 10:30:00', 1.5::DOUBLE, true),
  (2, NULL, DATE '2024-01-04', NULL, NULL, false),
  (3, 'Genève', NULL, TIMESTAMP '2024-02-01 00:00:00', -2.25, NULL)
) t(id, city, day, seen, rain, wet)`;

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  await connection.run(
    `COPY (SELECT * FROM ${ROWS}) TO '${join(dir, 'weather.parquet')}' (FORMAT parquet)`,
  );
  // Row groups of 1,000 rows: a repeated key found across them.
  await connection.run(
    `COPY (SELECT i % 2999 AS id FROM range(3000) r(i)) TO '${join(dir, 'keys.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 1000)`,
  );
  // The same rows in each codec DuckDB writes; one row group of two million equal values,
  // small on disk and large once read.
  for (const codec of ['zstd', 'gzip', 'brotli', 'lz4'])
    await connection.run(
      `COPY (SELECT * FROM ${ROWS}) TO '${join(dir, `weather-${codec}.parquet`)}' (FORMAT parquet, COMPRESSION ${codec})`,
    );
  await connection.run(
    `COPY (SELECT 1 AS one FROM range(2000000)) TO '${join(dir, 'bomb.parquet')}' (FORMAT parquet, ROW_GROUP_SIZE 2000000)`,
  );
  connection.closeSync();
});

function pkg(name: string, resource: Record<string, unknown>): string {
  const folder = join(dir, name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder);
  for (const file of ['weather.parquet', 'keys.parquet'])
    copyFileSync(join(dir, file), join(folder, file));
  writeFileSync(join(folder, 'datapackage.json'), JSON.stringify({ name, resources: [resource] }));
  return folder;
}

const WEATHER_FIELDS = [
  { name: 'id', type: 'integer' },
  { name: 'city', type: 'string' },
  { name: 'day', type: 'date' },
  { name: 'seen', type: 'datetime' },
  { name: 'rain', type: 'number' },
  { name: 'wet', type: 'boolean' },
];

describe('Parquet tables', () => {
  it('infer their schema from the types of the file when given alone', async () => {
    const report = await check(join(dir, 'weather.parquet'));
    expect(summary(report)).toEqual([]);
    expect(report.tasks[0]?.stats.rows).toBe(3);
    const described = await describeFile(join(dir, 'weather.parquet'));
    expect(described.resources[0]?.schema).toEqual({ fields: WEATHER_FIELDS });
  });

  it('are checked against a schema: types, nulls as missing values, constraints', async () => {
    const valid = pkg('valid', {
      name: 'weather',
      path: 'weather.parquet',
      schema: { fields: WEATHER_FIELDS },
    });
    expect(summary(await check(valid))).toEqual([]);
    const strict = pkg('strict', {
      name: 'weather',
      path: 'weather.parquet',
      schema: {
        fields: WEATHER_FIELDS.map((field) =>
          field.name === 'city'
            ? { ...field, constraints: { required: true } }
            : field.name === 'rain'
              ? { ...field, constraints: { minimum: 0 } }
              : field,
        ),
      },
    });
    expect(summary(await check(strict))).toEqual(['constraint-error@3@2', 'constraint-error@4@5']);
    // A label that is not the field's name, as for a CSV header.
    const renamed = pkg('renamed', {
      name: 'weather',
      path: 'weather.parquet',
      schema: {
        fields: WEATHER_FIELDS.map((field, index) =>
          index === 1 ? { ...field, name: 'town' } : field,
        ),
      },
    });
    expect(summary(await check(renamed))).toEqual(['incorrect-label@2']);
  });

  it('find a repeated primary key across row groups, and check bytes and hash', async () => {
    const keyed = pkg('keyed', {
      name: 'keys',
      path: 'keys.parquet',
      bytes: 1,
      schema: { fields: [{ name: 'id', type: 'integer' }], primaryKey: ['id'] },
    });
    expect(summary(await check(keyed))).toEqual(['primary-key@3001', 'byte-count']);
  });

  it('give a type-error where the column type cannot hold the field type, row by row', async () => {
    const unfit = pkg('unfit', {
      name: 'weather',
      path: 'weather.parquet',
      schema: {
        fields: WEATHER_FIELDS.map((field) =>
          // Texts for an integer, a timestamp for a date, an integer for a string.
          field.name === 'city'
            ? { ...field, type: 'integer' }
            : field.name === 'seen'
              ? { ...field, type: 'date' }
              : field.name === 'id'
                ? { ...field, type: 'string' }
                : field,
        ),
      },
    });
    // Null cells are missing values, whatever the column type.
    expect(summary(await check(unfit))).toEqual([
      'type-error@2@1',
      'type-error@2@2',
      'type-error@2@4',
      'type-error@3@1',
      'type-error@4@1',
      'type-error@4@2',
      'type-error@4@4',
    ]);
  });

  it('say a file that is not Parquet is not', async () => {
    writeFileSync(join(dir, 'fake.parquet'), 'id\n1\n');
    expect(summary(await check(join(dir, 'fake.parquet')))).toEqual(['format-error']);
  });

  it('are read whatever their codec, and a codec not known here is a format error', async () => {
    for (const codec of ['zstd', 'gzip', 'brotli']) {
      const report = await check(join(dir, `weather-${codec}.parquet`));
      expect(summary(report)).toEqual([]);
      expect(report.tasks[0]?.stats.rows).toBe(3);
    }
    const lz4 = await check(join(dir, 'weather-lz4.parquet'));
    expect(summary(lz4)).toEqual(['format-error']);
    expect(lz4.tasks[0]?.errors[0]?.message).toMatch(/LZ4/);
  });

  it('are known by their first bytes when neither format nor extension says so', async () => {
    const folder = pkg('by-content', {
      name: 'weather',
      path: 'weather.data',
      schema: { fields: WEATHER_FIELDS },
    });
    copyFileSync(join(dir, 'weather.parquet'), join(folder, 'weather.data'));
    const report = await check(folder);
    expect(summary(report)).toEqual([]);
    expect(report.tasks[0]?.stats.rows).toBe(3);
    // Named alone on the command line, with an extension that says nothing of tables.
    copyFileSync(join(dir, 'weather.parquet'), join(dir, 'weather.bin'));
    const alone = await check(join(dir, 'weather.bin'));
    expect(summary(alone)).toEqual([]);
    expect(alone.tasks[0]?.stats.rows).toBe(3);
  });

  it('give a format error for a truncated or damaged file, never a crash', async () => {
    const whole = readFileSync(join(dir, 'weather.parquet'));
    writeFileSync(join(dir, 'truncated.parquet'), whole.subarray(0, whole.length - 40));
    expect(summary(await check(join(dir, 'truncated.parquet')))).toEqual(['format-error']);
    // The footer kept, the pages overwritten with bytes that decode to nothing sensible.
    const damaged = Buffer.from(whole);
    for (let i = 4; i < damaged.length / 2; i++) damaged[i] = (i * 37) % 256;
    writeFileSync(join(dir, 'damaged.parquet'), damaged);
    const report = await check(join(dir, 'damaged.parquet'));
    expect(summary(report)).toContain('format-error');
  });

  it('refuse a row group that declares more than the memory given to reading it', async () => {
    const limits = {
      maxRowChars: 1_000_000,
      maxColumns: 1000,
      maxSharedTextBytes: 16 * 1024 * 1024,
    };
    const refused = await check(join(dir, 'bomb.parquet'), { rowLimits: limits });
    expect(summary(refused)).toEqual(['format-error']);
    expect(refused.tasks[0]?.errors[0]?.message).toMatch(/row group 1 declares \d+ MB/);
    // Without the hub's limits, the command line reads it.
    const read = await check(join(dir, 'bomb.parquet'));
    expect(read.tasks[0]?.stats.rows).toBe(2_000_000);
  });

  it('check a foreign key from a Parquet table into a CSV table of the package', async () => {
    const folder = pkg('linked', {
      name: 'weather',
      path: 'weather.parquet',
      schema: {
        fields: WEATHER_FIELDS,
        foreignKeys: [{ fields: ['id'], reference: { resource: 'stations', fields: ['id'] } }],
      },
    });
    writeFileSync(join(folder, 'stations.csv'), 'id,name\n1,one\n3,three\n');
    const descriptor = JSON.parse(readFileSync(join(folder, 'datapackage.json'), 'utf8')) as {
      resources: object[];
    };
    descriptor.resources.push({
      name: 'stations',
      path: 'stations.csv',
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'name', type: 'string' },
        ],
      },
    });
    writeFileSync(join(folder, 'datapackage.json'), JSON.stringify(descriptor));
    // Row 3 holds id 2, which no station has.
    expect(summary(await check(folder))).toEqual(['foreign-key@3']);
  });
});
