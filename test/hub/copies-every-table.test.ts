/**
 * Every copy a hub's descriptor names answers, whatever the table it is made from (rows
 * inline in the descriptor, a workbook's sheet, a `.txt` of comma-separated values, Latin-1
 * with semicolons, a byte order mark), and the CSV, JSON and Parquet copies of one table say
 * the same values: read by DuckDB (a reader no one here wrote) with the types their schemas
 * declare, the CSV and the Parquet copies give the same rows, and both the JSON copy's.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  browserLogin,
  EXAMPLES,
  publish,
  runData,
  tempDir,
  waitForState,
  withHub,
} from './helpers.js';

type Field = { name: string; type?: string; format?: string };
type Resource = {
  name: string;
  path?: string;
  bytes?: number;
  schema?: { fields: Field[] };
  datahub?: { type: string; derivedFrom?: string[] };
};

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Day-first dates, a decimal comma and grouped digits, other true words, three kinds of zone. */
const TIMES = [
  'id;seen;day;at;ok;amount;count;label',
  '1;2024-01-03T10:30:00+02:00;03/01/2024;10:30;ja;1.234,5;1.000;Zürich',
  '2;2024-01-03T08:30:00;04/01/2024;23:59;nein;-0,25;12;n/a',
  '3;2024-01-03T08:30:00Z;;;;n/a;;',
  '4;1999-12-31T23:59:59.250-05:30;29/02/2000;00:00;ja;1e3;-7;"a;b"',
].join('\n');

const TIMES_FIELDS = [
  { name: 'id', type: 'integer' },
  { name: 'seen', type: 'datetime' },
  { name: 'day', type: 'date', format: '%d/%m/%Y' },
  { name: 'at', type: 'time', format: '%H:%M' },
  { name: 'ok', type: 'boolean', trueValues: ['ja'], falseValues: ['nein'] },
  { name: 'amount', type: 'number', decimalChar: ',', groupChar: '.' },
  { name: 'count', type: 'integer', groupChar: '.' },
  { name: 'label', type: 'string' },
];

/** A table at `path` of an integer id and a string name. */
function idAndName(name: string, path: string): Resource {
  return {
    name,
    path,
    schema: {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'name', type: 'string' },
      ],
    },
  };
}

beforeAll(() => {
  // The weather stations' workbook (date-times in a sheet) and CSV, with more tables beside.
  cpSync(join(EXAMPLES, 'weather-stations'), dir, { recursive: true });
  const descriptor = JSON.parse(readFileSync(join(dir, 'datapackage.json'), 'utf8')) as {
    resources: Record<string, unknown>[];
  };
  mkdirSync(join(dir, 'data'), { recursive: true });
  writeFileSync(join(dir, 'data', 'times.csv'), Buffer.from(`${TIMES}\n`, 'latin1'));
  writeFileSync(join(dir, 'data', 'plain.txt'), 'id,name\n1,one\n2,"two, too"\n');
  writeFileSync(join(dir, 'data', 'marked.csv'), '\uFEFFid,name\n1,one\n');
  writeFileSync(join(dir, 'data', 'semis.txt'), 'id;name\n1;one\n2;two\n');
  descriptor.resources.push(
    {
      name: 'times',
      path: 'data/times.csv',
      encoding: 'iso-8859-1',
      dialect: { delimiter: ';' },
      schema: { fields: TIMES_FIELDS, missingValues: ['', 'n/a'] },
    },
    idAndName('plain', 'data/plain.txt'),
    idAndName('marked', 'data/marked.csv'),
    idAndName('semis', 'data/semis.txt'),
    {
      name: 'stores',
      data: [
        { store: 'north', opened: '2019-05-01T09:00:00+01:00', staff: 3 },
        { store: 'south', opened: null, staff: 12 },
      ],
      schema: {
        fields: [
          { name: 'store', type: 'string' },
          { name: 'opened', type: 'datetime' },
          { name: 'staff', type: 'integer' },
        ],
      },
    },
    {
      name: 'matrix',
      data: [
        ['x', 'y'],
        ['1', 'true'],
        ['2', 'false'],
      ],
      schema: {
        fields: [
          { name: 'x', type: 'integer' },
          { name: 'y', type: 'boolean' },
        ],
      },
    },
  );
  writeFileSync(join(dir, 'datapackage.json'), JSON.stringify(descriptor));
});

/** The DuckDB type a copy's field is read as: the Table Schema's type, or text. */
const DUCK_TYPES: Record<string, string> = {
  integer: 'BIGINT',
  number: 'DOUBLE',
  boolean: 'BOOLEAN',
  date: 'DATE',
  datetime: 'TIMESTAMPTZ',
  time: 'TIME',
};

/** DuckDB's text of an instant in UTC, in ISO 8601 with milliseconds, as `toISOString`. */
function sameForm(text: string): string {
  if (!/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?\+00$/.test(text)) return text;
  return new Date(Date.parse(`${text.replace(' ', 'T').slice(0, -3)}Z`)).toISOString();
}

/** Rows DuckDB reads with `from`, each value as text, in UTC. */
async function duck(from: string): Promise<Record<string, string | null>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    await connection.run("SET TimeZone = 'UTC'");
    const reader = await connection.runAndReadAll(`SELECT * FROM ${from}`);
    return reader
      .getRowObjectsJson()
      .map((row) =>
        Object.fromEntries(
          Object.entries(row).map(([key, value]) => [
            key,
            value === null || value === undefined
              ? null
              : sameForm(JSON.stringify(value).replace(/^"|"$/g, '')),
          ]),
        ),
      );
  } finally {
    connection.closeSync();
  }
}

/** The CSV copy read by DuckDB with the types its declared schema gives, not guessed. */
function csvWithSchema(file: string, fields: Field[]): string {
  const columns = fields
    .map((field) => `'${field.name}': '${DUCK_TYPES[field.type ?? 'string'] ?? 'VARCHAR'}'`)
    .join(', ');
  return `read_csv('${file}', header = true, auto_detect = false, delim = ',', quote = '"', columns = {${columns}})`;
}

/** A JSON copy's value as text, as DuckDB writes the same value. */
function jsonText(value: unknown, type: string | undefined): string | null {
  if (value === null) return null;
  if (type === 'datetime' && typeof value === 'string') {
    const ms = Date.parse(value);
    return new Date(ms).toISOString();
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

async function bytesOf(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

describe('copies of every table', () => {
  it('answers every copy the descriptor names, of every kind of table, and their values agree', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const state = await waitForState(url, (await publish(url, jwt, dir)).flowId);
      expect(state.state).toBe('SUCCEEDED');
      const base = `${url}/ada/weather-stations`;
      const descriptor = (await (await fetch(`${base}/datapackage.json`)).json()) as {
        resources: Resource[];
      };
      const byName = new Map(descriptor.resources.map((resource) => [resource.name, resource]));
      const tables = descriptor.resources.filter((resource) => !resource.datahub);
      expect(tables.map((table) => table.name)).toEqual([
        'regions',
        'stations',
        'readings',
        'times',
        'plain',
        'marked',
        'semis',
        'stores',
        'matrix',
      ]);
      // Every derived resource answers, and every table has its three copies.
      for (const resource of descriptor.resources.filter((each) => each.datahub))
        await bytesOf(`${base}/${String(resource.path)}`);
      const work = tempDir();
      try {
        for (const table of tables) {
          const csvCopy = byName.get(`${table.name}_csv`);
          const parquetCopy = byName.get(`${table.name}_parquet`);
          expect(csvCopy?.datahub?.derivedFrom, table.name).toEqual([table.name]);
          expect(byName.get(`${table.name}_json`), table.name).toBeDefined();
          const csvFile = join(work, `${table.name}.csv`);
          const parquetFile = join(work, `${table.name}.parquet`);
          writeFileSync(csvFile, await bytesOf(`${base}/${String(csvCopy?.path)}`));
          writeFileSync(parquetFile, await bytesOf(`${base}/${String(parquetCopy?.path)}`));
          const json = (await bytesOf(`${base}/r/${table.name}_json.json`)).toString();
          const fields = csvCopy?.schema?.fields ?? [];
          // The CSV and Parquet copies declare one schema, with no text formats left.
          expect(csvCopy?.schema, table.name).toEqual(parquetCopy?.schema);
          for (const field of fields) expect(field.format, field.name).toBeUndefined();
          const fromCsv = await duck(csvWithSchema(csvFile, fields));
          const fromParquet = await duck(`read_parquet('${parquetFile}')`);
          expect(fromCsv, table.name).toEqual(fromParquet);
          const fromJson = (JSON.parse(json) as Record<string, unknown>[]).map((row) =>
            Object.fromEntries(
              fields.map((field) => [field.name, jsonText(row[field.name], field.type)]),
            ),
          );
          // DuckDB writes dates, times and numbers in its own ways: compared where one.
          const comparable = (rows: Record<string, string | null>[]) =>
            rows.map((row) =>
              Object.fromEntries(
                fields
                  .filter((field) => !['date', 'time', 'number'].includes(field.type ?? ''))
                  .map((field) => [field.name, row[field.name] ?? null]),
              ),
            );
          expect(comparable(fromParquet), table.name).toEqual(comparable(fromJson));
        }
      } finally {
        rmSync(work, { recursive: true, force: true });
      }

      // One writer rule per type, zone included.
      const times = (await bytesOf(`${base}/r/times_csv.csv`)).toString();
      expect(times).toBe(
        [
          'id,seen,day,at,ok,amount,count,label',
          '1,2024-01-03T08:30:00Z,2024-01-03,10:30:00,true,1234.5,1000,Zürich',
          '2,2024-01-03T08:30:00Z,2024-01-04,23:59:00,false,-0.25,12,',
          '3,2024-01-03T08:30:00Z,,,,,,',
          '4,2000-01-01T05:29:59.250Z,2000-02-29,00:00:00,true,1000,-7,a;b',
          '',
        ].join('\n'),
      );
      expect(JSON.parse((await bytesOf(`${base}/r/times_json.json`)).toString())).toEqual([
        {
          id: 1,
          seen: '2024-01-03T08:30:00Z',
          day: '2024-01-03',
          at: '10:30:00',
          ok: true,
          amount: 1234.5,
          count: 1000,
          label: 'Zürich',
        },
        {
          id: 2,
          seen: '2024-01-03T08:30:00Z',
          day: '2024-01-04',
          at: '23:59:00',
          ok: false,
          amount: -0.25,
          count: 12,
          label: null,
        },
        {
          id: 3,
          seen: '2024-01-03T08:30:00Z',
          day: null,
          at: null,
          ok: null,
          amount: null,
          count: null,
          label: null,
        },
        {
          id: 4,
          seen: '2000-01-01T05:29:59.250Z',
          day: '2000-02-29',
          at: '00:00:00',
          ok: true,
          amount: 1000,
          count: -7,
          label: 'a;b',
        },
      ]);
      // A workbook's date-times: UTC, said so, as in the JSON and Parquet copies.
      const readings = (await bytesOf(`${base}/r/readings_csv.csv`)).toString();
      expect(readings.split('\n')[1]).toBe('1,2024-01-15T09:00:00Z,8.4,true');
      // Inline rows, written as any table's.
      expect((await bytesOf(`${base}/r/stores_csv.csv`)).toString()).toBe(
        'store,opened,staff\nnorth,2019-05-01T08:00:00Z,3\nsouth,,12\n',
      );
      expect((await bytesOf(`${base}/r/matrix_csv.csv`)).toString()).toBe('x,y\n1,true\n2,false\n');
      // A .txt of comma-separated values in normal form is its own copy; a BOM is not.
      expect(byName.get('plain_csv')).toMatchObject({
        bytes: readFileSync(join(dir, 'data', 'plain.txt')).length,
      });
      expect(byName.get('marked_csv')?.bytes).toBeUndefined();
      expect(byName.get('times_csv')?.bytes).toBeUndefined();
      // A .txt of semicolon-separated values is told as validation tells it, and says so.
      expect(byName.get('semis')).toMatchObject({ encoding: 'utf-8', dialect: { delimiter: ';' } });
      expect(byName.get('semis_csv')?.bytes).toBeUndefined();
      expect((await bytesOf(`${base}/r/semis_csv.csv`)).toString()).toBe('id,name\n1,one\n2,two\n');
      expect((await bytesOf(`${base}/r/marked_csv.csv`)).toString()).toBe('id,name\n1,one\n');
    });
  });

  it('data get --format csv, json and parquet of a package with an inline table', async () => {
    const work = tempDir();
    try {
      await withHub({}, async ({ url }) => {
        const env = { DATA_API: url, DATA_TOKEN: await browserLogin(url) };
        expect((await runData(['publish', join(EXAMPLES, 'sales-v2')], { env })).code).toBe(0);
        for (const format of ['csv', 'json', 'parquet']) {
          const got = await runData(
            ['get', 'ada/shop-sales', '--format', format, '--out', format],
            { env, cwd: work },
          );
          expect(got.err).not.toMatch(/^error/m);
          expect(got.code, format).toBe(0);
          const saved = JSON.parse(
            readFileSync(join(work, format, 'datapackage.json'), 'utf8'),
          ) as {
            resources: { name: string; path?: string }[];
          };
          expect(saved.resources.find((resource) => resource.name === 'stores')?.path).toBe(
            `data/stores.${format}`,
          );
          // What was saved is a package that validates, in every format.
          const valid = await runData(['validate', format], { env, cwd: work });
          expect(valid.out + valid.err, format).not.toMatch(/error/i);
          expect(valid.code, format).toBe(0);
        }
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
