/**
 * The hub's Parquet copies, read by DuckDB (a reader no one here wrote) from bytes fetched
 * by range requests, as a remote Parquet reader fetches them: every value must equal the
 * typed JSON copy of the same table.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { parquetMetadata } from 'hyparquet';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  afterPublication,
  browserLogin,
  publish,
  tempDir,
  waitForState,
  withHub,
} from './helpers.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TYPED_FIELDS = [
  { name: 'id', type: 'integer' },
  { name: 'big', type: 'integer' },
  { name: 'price', type: 'number', decimalChar: ',' },
  { name: 'ok', type: 'boolean', trueValues: ['yes'], falseValues: ['no'] },
  { name: 'day', type: 'date', format: '%d/%m/%Y' },
  { name: 'seen', type: 'datetime' },
  { name: 'at', type: 'time' },
  { name: 'born', type: 'year' },
  { name: 'city', type: 'string' },
  { name: 'extra', type: 'object' },
  { name: 'span', type: 'duration' },
];

const TYPED_CSV = [
  'id;big;price;ok;day;seen;at;born;city;extra;span',
  '1;9007199254740993;1,5;yes;03/01/2024;2024-01-03T10:30:00+02:00;10:30:00;1990;Zürich;{"a":1};P1D',
  '2;;-2,25;no;;;;;東京 "quoted";;',
  '3;-42;;;01/01/1970;1970-01-01T00:00:00Z;00:00:00;2024;;{"b":[1,2]};PT5M',
  '4;0;1e300;yes;29/02/2000;1999-12-31T23:59:59Z;23:59:59;0001;Ελλάδα;{};P1Y',
].join('\n');

/** Rows enough for several row groups of the copy. */
const MANY_ROWS = 300_000;

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'typed.csv'), `${TYPED_CSV}\n`);
  const many = [
    'n,label',
    ...Array.from({ length: MANY_ROWS }, (_, i) => `${String(i)},row ${String(i)}`),
  ];
  writeFileSync(join(dir, 'many.csv'), `${many.join('\n')}\n`);
  // A Parquet table of the package's own, written by DuckDB, whose key points into a CSV one.
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  await connection.run(
    `COPY (SELECT * FROM (VALUES (10::BIGINT, 1::BIGINT, DATE '2024-05-01'), (11, 3, NULL)) t(visit, typed_id, day))
     TO '${join(dir, 'visits.parquet')}' (FORMAT parquet)`,
  );
  connection.closeSync();
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: 'typed',
      resources: [
        {
          name: 'typed',
          path: 'typed.csv',
          dialect: { delimiter: ';' },
          schema: { fields: TYPED_FIELDS, primaryKey: ['id'] },
        },
        {
          name: 'many',
          path: 'many.csv',
          schema: {
            fields: [
              { name: 'n', type: 'integer' },
              { name: 'label', type: 'string' },
            ],
          },
        },
        {
          name: 'visits',
          path: 'visits.parquet',
          schema: {
            fields: [
              { name: 'visit', type: 'integer' },
              { name: 'typed_id', type: 'integer' },
              { name: 'day', type: 'date' },
            ],
            foreignKeys: [
              { fields: ['typed_id'], reference: { resource: 'typed', fields: ['id'] } },
            ],
          },
        },
      ],
    }),
  );
});

/** A remote reader of one file: asks its size, then reads the byte ranges it wants. */
class RangeReader {
  fetched = 0;
  etag = '';

  constructor(readonly url: string) {}

  async size(): Promise<number> {
    const head = await fetch(this.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('accept-ranges')).toBe('bytes');
    this.etag = head.headers.get('etag') ?? '';
    return Number(head.headers.get('content-length'));
  }

  async range(start: number, end: number): Promise<Buffer> {
    const response = await fetch(this.url, {
      headers: { range: `bytes=${String(start)}-${String(end - 1)}`, 'if-range': this.etag },
    });
    expect(response.status).toBe(206);
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.length).toBe(end - start);
    this.fetched += bytes.length;
    return bytes;
  }
}

/** The file's footer, read by range as Parquet readers do: its last 8 bytes, then the rest. */
async function footer(reader: RangeReader, size: number) {
  const tail = await reader.range(size - 8, size);
  expect(tail.subarray(4).toString()).toBe('PAR1');
  const length = tail.readUInt32LE(0);
  const bytes = await reader.range(size - 8 - length, size);
  const metadata = parquetMetadata(new Uint8Array(bytes));
  return { metadata, start: size - 8 - length };
}

/** Fetches a whole Parquet file piece by piece: the footer, then each row group's bytes. */
async function byRanges(url: string, file: string): Promise<{ groups: number; fetched: number }> {
  const reader = new RangeReader(url);
  const size = await reader.size();
  const whole = Buffer.alloc(size);
  const { metadata, start } = await footer(reader, size);
  (await reader.range(start, size)).copy(whole, start);
  (await reader.range(0, 4)).copy(whole, 0);
  let end = 4;
  for (const group of metadata.row_groups) {
    const from = Math.min(
      ...group.columns.map((column) =>
        Number(column.meta_data?.dictionary_page_offset ?? column.meta_data?.data_page_offset),
      ),
    );
    const to = from + Number(group.total_compressed_size);
    expect(from).toBe(end);
    (await reader.range(from, to)).copy(whole, from);
    end = to;
  }
  // What lies between the last group and the footer: the page indexes.
  if (end < start) (await reader.range(end, start)).copy(whole, end);
  writeFileSync(file, whole);
  return { groups: metadata.row_groups.length, fetched: reader.fetched };
}

async function duck(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJS();
  } finally {
    connection.closeSync();
  }
}

/** A value DuckDB read (a number, bigint, boolean or text here), as the JSON copy writes it. */
function asJsonCopy(type: string, read: unknown): unknown {
  if (read === null) return null;
  const value = read as string | number | bigint | boolean;
  switch (type) {
    case 'integer':
      return Number.isSafeInteger(Number(value)) ? Number(value) : String(value);
    case 'datetime':
      return new Date(Number(value)).toISOString().replace('.000Z', 'Z');
    case 'year':
      return String(value).padStart(4, '0');
    case 'object':
      return JSON.parse(String(value)) as unknown;
    default:
      return value;
  }
}

/** The typed table as DuckDB reads it from a Parquet file, each value as the JSON copy's. */
async function typedRows(file: string): Promise<Record<string, unknown>[]> {
  const rows = await duck(
    `SELECT id, big, price, ok, day::VARCHAR AS day, epoch_ms(seen) AS seen, "at"::VARCHAR AS "at",
       born, city, extra::VARCHAR AS extra, span FROM read_parquet('${file}') ORDER BY id`,
  );
  return rows.map((row) =>
    Object.fromEntries(
      TYPED_FIELDS.map((field) => [field.name, asJsonCopy(field.type, row[field.name] ?? null)]),
    ),
  );
}

describe('Parquet copies', () => {
  it('are typed by the schema and read by DuckDB by ranges as the JSON copy says', async () => {
    await withHub({}, async (running) => {
      const { url, hub } = running;
      const jwt = await browserLogin(url);
      const state = await waitForState(url, (await publish(url, jwt, dir)).flowId);
      expect(state.state).toBe('SUCCEEDED');
      await afterPublication(running);
      const descriptor = (await (await fetch(`${url}/ada/typed/datapackage.json`)).json()) as {
        resources: {
          name: string;
          path: string;
          schema?: { fields: object[] };
          datahub?: { type: string };
        }[];
      };
      const copy = descriptor.resources.find((each) => each.name === 'typed_parquet');
      expect(copy?.datahub?.type).toBe('derived/parquet');
      expect(copy?.path).toBe('_derived/typed_parquet.parquet');
      // Its schema says no more how values were written: they are typed.
      expect(copy?.schema?.fields[2]).toEqual({ name: 'price', type: 'number' });
      expect(copy?.schema?.fields[4]).toEqual({ name: 'day', type: 'date' });
      expect(descriptor.resources.map((each) => each.name)).toContain('visits_parquet');

      const file = join(dir, 'typed-copy.parquet');
      await byRanges(`${url}/ada/typed/r/typed.parquet`, file);
      const json = (await (await fetch(`${url}/ada/typed/r/typed.json`)).json()) as unknown[];
      expect(await typedRows(file)).toEqual(json);
      const types = await duck(`DESCRIBE SELECT * FROM read_parquet('${file}')`);
      expect(Object.fromEntries(types.map((row) => [row.column_name, row.column_type]))).toEqual({
        id: 'BIGINT',
        big: 'BIGINT',
        price: 'DOUBLE',
        ok: 'BOOLEAN',
        day: 'DATE',
        seen: 'TIMESTAMP WITH TIME ZONE',
        at: 'TIME',
        born: 'INTEGER',
        city: 'VARCHAR',
        extra: 'JSON',
        span: 'VARCHAR',
      });
      // The same copy by the table's index, and kept: not made again. The Parquet copy was made
      // for the column statistics after publication: only the JSON copy was made here.
      const byIndex = await fetch(`${url}/ada/typed/r/0.parquet`);
      expect(byIndex.status).toBe(200);
      expect(byIndex.headers.get('content-type')).toBe('application/vnd.apache.parquet');
      expect(Buffer.from(await byIndex.arrayBuffer()).equals(readFileSync(file))).toBe(true);
      expect(hub.copies.made).toBe(1);
    });
  });

  it('come in row groups a reader fetches one by one, answering If-Range as a stored file', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const state = await waitForState(url, (await publish(url, jwt, dir)).flowId);
      expect(state.state).toBe('SUCCEEDED');
      const copyUrl = `${url}/ada/typed/r/many.parquet`;
      const file = join(dir, 'many-copy.parquet');
      const { groups } = await byRanges(copyUrl, file);
      expect(groups).toBeGreaterThanOrEqual(3);
      const [summary] = await duck(
        `SELECT count(*) AS n, sum(n) AS total, max(label) AS last FROM read_parquet('${file}')`,
      );
      expect(Number(summary?.n)).toBe(MANY_ROWS);
      expect(Number(summary?.total)).toBe((MANY_ROWS * (MANY_ROWS - 1)) / 2);
      expect(summary?.last).toBe('row 99999');

      // A reader wanting one row group fetches its footer and that group, not the file.
      const reader = new RangeReader(copyUrl);
      const size = await reader.size();
      const { metadata } = await footer(reader, size);
      const last = metadata.row_groups.at(-1);
      const offsets = last?.columns.map((column) => Number(column.meta_data?.data_page_offset));
      const from = Math.min(...(offsets ?? []));
      await reader.range(from, from + Number(last?.total_compressed_size));
      expect(reader.fetched).toBeLessThan(size / 2);
      // Column statistics let a reader skip groups without reading them.
      const stats = last?.columns[0]?.meta_data?.statistics;
      expect(Number(stats?.max_value)).toBe(MANY_ROWS - 1);

      // If-Range with another version's tag: the whole file, as it is now.
      const stale = await fetch(copyUrl, { headers: { range: 'bytes=0-3', 'if-range': '"0-0"' } });
      expect(stale.status).toBe(200);
      expect(Number(stale.headers.get('content-length'))).toBe(size);
      await stale.body?.cancel();
    });
  });
});
