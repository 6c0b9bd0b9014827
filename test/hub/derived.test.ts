import { DuckDBInstance } from '@duckdb/node-api';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  browserLogin,
  CITIES_PUBLISHED,
  EXAMPLES,
  publish,
  runData,
  tempDir,
  waitForState,
  withHub,
} from './helpers.js';
import { unzipTo, zipEntries } from '../helpers/unzip.js';

/** A table as people write them: Latin-1, semicolons, day-first dates, decimal commas, gaps. */
function regionalPackage(dir: string): void {
  mkdirSync(dir, { recursive: true });
  const text = 'station;day;rain;note\nZürich;03/01/2024;1,5;"wet; cold"\nGenève;04/01/2024;;\n';
  writeFileSync(join(dir, 'rain.csv'), Buffer.from(text, 'latin1'));
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: 'rain',
      resources: [
        {
          name: 'rain',
          path: 'rain.csv',
          encoding: 'iso-8859-1',
          dialect: { delimiter: ';' },
          schema: {
            fields: [
              { name: 'station', type: 'string' },
              { name: 'day', type: 'date', format: '%d/%m/%Y' },
              { name: 'rain', type: 'number', decimalChar: ',' },
              { name: 'note', type: 'string' },
            ],
          },
        },
      ],
    }),
  );
}

/**
 * The rows of a Parquet file as DuckDB reads them, each value as the JSON copy writes it:
 * dates and instants (in UTC) as ISO 8601 text, integers as numbers (all are small here).
 */
async function duckRows(file: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    await connection.run("SET TimeZone = 'UTC'");
    const rows = (
      await connection.runAndReadAll(`SELECT * FROM read_parquet('${file}')`)
    ).getRowObjectsJson() as Record<string, unknown>[];
    const types = (
      await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${file}')`)
    ).getRowObjectsJson() as { column_name: string; column_type: string }[];
    return rows.map((row) =>
      Object.fromEntries(
        types.map(({ column_name: name, column_type: type }) => {
          const value = row[name] ?? null;
          if (value === null) return [name, null];
          if (type === 'BIGINT') return [name, Number(value)];
          if (type === 'TIMESTAMP WITH TIME ZONE' && typeof value === 'string')
            return [name, value.replace(' ', 'T').replace(/\+00$/, 'Z')];
          return [name, value];
        }),
      ),
    );
  } finally {
    connection.closeSync();
  }
}

describe('derived copies of every table', () => {
  it('serves a CSV copy in one normal form and a typed JSON copy, by index, by name and as named resources', async () => {
    const dir = tempDir();
    try {
      regionalPackage(dir);
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        expect((await waitForState(url, (await publish(url, jwt, dir)).flowId)).state).toBe(
          'SUCCEEDED',
        );
        const read = async (path: string) => {
          const response = await fetch(`${url}/ada/rain/r/${path}`);
          expect(response.status).toBe(200);
          return { type: response.headers.get('content-type'), text: await response.text() };
        };
        // The original: its Latin-1 bytes, as they were uploaded.
        const original = await fetch(`${url}/ada/rain/r/0.csv`);
        expect(
          Buffer.from(await original.arrayBuffer()).equals(readFileSync(join(dir, 'rain.csv'))),
        ).toBe(true);
        const copy = await read('rain_csv.csv');
        // Each value in its type's one form, as the JSON copy writes it.
        expect(copy.text).toBe(
          'station,day,rain,note\nZürich,2024-01-03,1.5,wet; cold\nGenève,2024-01-04,,\n',
        );
        const json = await read('0.json');
        expect(json.type).toContain('application/json');
        expect(JSON.parse(json.text)).toEqual([
          { station: 'Zürich', day: '2024-01-03', rain: 1.5, note: 'wet; cold' },
          { station: 'Genève', day: '2024-01-04', rain: null, note: null },
        ]);
        expect((await read('rain.json')).text).toBe(json.text);
        expect((await read('rain_json.json')).text).toBe(json.text);
        const descriptor = (await (await fetch(`${url}/ada/rain/datapackage.json`)).json()) as {
          resources: { name: string; datahub?: { type: string; derivedFrom: string[] } }[];
        };
        expect(
          descriptor.resources.map((resource) => [resource.name, resource.datahub?.type]),
        ).toEqual([
          ['rain', undefined],
          ['rain_csv', 'derived/csv'],
          ['rain_json', 'derived/json'],
          ['rain_csv_preview', 'derived/preview'],
          ['rain_parquet', 'derived/parquet'],
          ['rain_zip', 'derived/zip'],
        ]);
        expect((await fetch(`${url}/ada/rain/r/0.xlsx`)).status).toBe(404);
        const preview = await read('rain_csv_preview.json');
        expect(JSON.parse(preview.text)).toEqual([
          { station: 'Zürich', day: '2024-01-03', rain: '1.5', note: 'wet; cold' },
          { station: 'Genève', day: '2024-01-04', rain: '', note: '' },
        ]);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('zips the whole dataset once per revision, a folder that can be published again', async () => {
    const dir = tempDir();
    try {
      regionalPackage(dir);
      writeFileSync(join(dir, 'README.md'), '# Rain\n');
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        const env = { DATA_API: url, DATA_TOKEN: jwt };
        expect((await runData(['publish', dir], { env })).code).toBe(0);
        const response = await fetch(`${url}/ada/rain/r/rain_zip.zip`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/zip');
        const zipped = Buffer.from(await response.arrayBuffer());
        const files = await zipEntries(zipped);
        expect([...files.keys()].sort()).toEqual([
          'README.md',
          '_derived/rain_csv.csv',
          '_derived/rain_csv_preview.json',
          '_derived/rain_json.json',
          'datapackage.json',
          'rain.csv',
        ]);
        expect(files.get('rain.csv')?.equals(readFileSync(join(dir, 'rain.csv')))).toBe(true);
        expect(files.get('_derived/rain_csv.csv')?.toString()).toBe(
          await (await fetch(`${url}/ada/rain/r/0.csv`.replace('0.csv', 'rain_csv.csv'))).text(),
        );
        const inside = JSON.parse(files.get('datapackage.json')?.toString() ?? '{}') as {
          resources: { name: string }[];
        };
        expect(inside.resources.map((resource) => resource.name)).not.toContain('rain_zip');
        const published = (await (await fetch(`${url}/ada/rain/datapackage.json`)).json()) as {
          resources: { name: string; bytes?: number }[];
        };
        // Made when first asked for: its size is not known as the revision is published.
        expect(
          published.resources.find((resource) => resource.name === 'rain_zip')?.bytes,
        ).toBeUndefined();
        // Asked for again, it is the same zip, now kept, with its length and ranges.
        const again = await fetch(`${url}/ada/rain/r/rain_zip.zip`);
        expect(again.headers.get('content-length')).toBe(String(zipped.length));
        expect(Buffer.from(await again.arrayBuffer()).equals(zipped)).toBe(true);
        // Unzipped, it is a package: published again, its copies are made anew.
        const unzipped = tempDir();
        try {
          await unzipTo(zipped, unzipped);
          const again = await runData(['publish', unzipped, '--force'], { env });
          expect(again.err).not.toMatch(/^error/m);
          expect(again.code).toBe(0);
          const latest = (await (await fetch(`${url}/ada/rain/datapackage.json`)).json()) as {
            resources: { name: string }[];
          };
          expect(latest.resources.map((resource) => resource.name)).toEqual([
            'rain',
            'rain_csv',
            'rain_json',
            'rain_csv_preview',
            'rain_parquet',
            'rain_zip',
          ]);
        } finally {
          rmSync(unzipped, { recursive: true, force: true });
        }
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('data get saves the tables as uploaded, as CSV or as JSON copies, or the zip', async () => {
    const dir = tempDir();
    const work = tempDir();
    try {
      regionalPackage(dir);
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        const env = { DATA_API: url, DATA_TOKEN: jwt };
        expect((await runData(['publish', dir], { env })).code).toBe(0);
        const saved = (folder: string) =>
          JSON.parse(readFileSync(join(work, folder, 'datapackage.json'), 'utf8')) as {
            resources: Record<string, unknown>[];
          };
        const csv = await runData(['get', 'ada/rain', '--format', 'csv', '--out', 'as-csv'], {
          env,
          cwd: work,
        });
        expect(csv.code).toBe(0);
        const [table] = saved('as-csv').resources;
        expect(table).toMatchObject({ name: 'rain', path: 'data/rain.csv', format: 'csv' });
        expect(table?.dialect).toBeUndefined();
        expect(readFileSync(join(work, 'as-csv', 'data', 'rain.csv'), 'utf8')).toBe(
          await (await fetch(`${url}/ada/rain/r/rain_csv.csv`)).text(),
        );
        // The copy and its schema agree: it validates, and publishes again as a source.
        expect((await runData(['validate', 'as-csv'], { env, cwd: work })).code).toBe(0);
        expect((await runData(['publish', 'as-csv', '--force'], { env, cwd: work })).code).toBe(0);

        expect(
          (
            await runData(['get', 'ada/rain', '--format', 'json', '--out', 'as-json'], {
              env,
              cwd: work,
            })
          ).code,
        ).toBe(0);
        expect(saved('as-json').resources[0]).toMatchObject({
          name: 'rain',
          path: 'data/rain.json',
        });
        expect(
          JSON.parse(readFileSync(join(work, 'as-json', 'data', 'rain.json'), 'utf8')),
        ).toEqual(await (await fetch(`${url}/ada/rain/r/0.json`)).json());

        // Parquet: typed by the schema the copy names, read by DuckDB as the JSON copy.
        const parquet = await runData(
          ['get', 'ada/rain', '--format', 'parquet', '--out', 'as-parquet'],
          { env, cwd: work },
        );
        expect(parquet.code).toBe(0);
        const [typed] = saved('as-parquet').resources;
        expect(typed).toMatchObject({ name: 'rain', path: 'data/rain.parquet', format: 'parquet' });
        expect(typed?.encoding).toBeUndefined();
        const file = join(work, 'as-parquet', 'data', 'rain.parquet');
        expect(await duckRows(file)).toEqual(
          await (await fetch(`${url}/ada/rain/r/0.json`)).json(),
        );
        expect((await runData(['validate', 'as-parquet'], { env, cwd: work })).code).toBe(0);
        const republished = await runData(['publish', 'as-parquet', '--force'], { env, cwd: work });
        expect(republished.err).not.toMatch(/^error/m);
        expect(republished.code).toBe(0);

        const zip = await runData(['get', 'ada/rain', '--zip'], { env, cwd: work });
        expect(zip.code).toBe(0);
        expect(
          readFileSync(join(work, 'rain.zip')).equals(
            Buffer.from(await (await fetch(`${url}/ada/rain/r/rain_zip.zip`)).arrayBuffer()),
          ),
        ).toBe(true);
        const again = await runData(['get', 'ada/rain', '--zip'], { env, cwd: work });
        expect(again.code).toBe(2);
        expect(again.err).toMatch(/rain\.zip exists/);
        const both = await runData(['get', 'ada/rain', '--zip', '--format', 'csv'], {
          env,
          cwd: work,
        });
        expect(both.code).toBe(2);
        const bad = await runData(['get', 'ada/rain', '--format', 'xml'], { env, cwd: work });
        expect(bad.code).toBe(2);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('writes each sheet of a workbook as CSV and JSON', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const example = join(EXAMPLES, 'weather-stations');
      const state = await waitForState(url, (await publish(url, jwt, example)).flowId);
      expect(state.state).toBe('SUCCEEDED');
      const descriptor = JSON.parse(readFileSync(join(example, 'datapackage.json'), 'utf8')) as {
        name: string;
        resources: { name: string; path: string }[];
      };
      for (const [index, resource] of descriptor.resources.entries()) {
        const csv = await fetch(`${url}/ada/${descriptor.name}/r/${String(index)}.csv`);
        expect(csv.status).toBe(200);
        const rows = (await csv.text()).trimEnd().split('\n');
        const json = (await (
          await fetch(`${url}/ada/${descriptor.name}/r/${resource.name}.json`)
        ).json()) as unknown[];
        expect(rows.length - 1).toBe(json.length);
        expect(json.length).toBeGreaterThan(0);
        const parquet = await fetch(`${url}/ada/${descriptor.name}/r/${String(index)}.parquet`);
        expect(parquet.status).toBe(200);
        const file = join(tempDir(), `${resource.name}.parquet`);
        writeFileSync(file, Buffer.from(await parquet.arrayBuffer()));
        expect(await duckRows(file)).toEqual(json);
      }
    });
  });

  it('gives the same CSV and JSON copies of one workbook saved as xlsx, xls and ods', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const env = { DATA_API: url, DATA_TOKEN: jwt };
      const copies: { csv: string; json: string }[] = [];
      for (const format of ['xlsx', 'xls', 'ods']) {
        const book = join(import.meta.dirname, '../fixtures/sheets', `book.${format}`);
        const name = `book-${format}`;
        const published = await runData(['publish', book, '--name', name, '--sheets', 'cities'], {
          env,
        });
        expect(published.err).not.toMatch(/^error/m);
        expect(published.code).toBe(0);
        copies.push({
          csv: await (await fetch(`${url}/ada/${name}/r/0.csv`)).text(),
          json: await (await fetch(`${url}/ada/${name}/r/0.json`)).text(),
        });
      }
      expect(copies[0]?.csv.split('\n').length).toBeGreaterThan(2);
      expect(copies[1]).toEqual(copies[0]);
      // OpenDocument writes a date-time at midnight as the date alone: the CSV copy writes it
      // as its field's type says, which its schema then describes.
      expect(copies[2]).toEqual(copies[0]);
      expect(copies[0]?.csv).toContain(',2024-05-03T00:00:00Z,');
    });
  });

  it('publish --sheets makes each chosen sheet of a workbook a table, and names the sheets when one is missing', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const env = { DATA_API: url, DATA_TOKEN: jwt };
      const book = join(EXAMPLES, 'weather-stations', 'data', 'stations.xlsx');
      const all = await runData(['publish', book, '--name', 'book', '--sheets', 'all'], { env });
      expect(all.err).not.toMatch(/^error/m);
      expect(all.code).toBe(0);
      const descriptor = (await (await fetch(`${url}/ada/book/datapackage.json`)).json()) as {
        resources: { name: string; dialect?: { sheetName?: string }; datahub?: unknown }[];
      };
      const tables = descriptor.resources.filter((resource) => resource.datahub === undefined);
      expect(tables.map((resource) => [resource.name, resource.dialect?.sheetName])).toEqual([
        ['book', 'stations'],
        ['book-readings', 'readings'],
      ]);
      const readings = (await (await fetch(`${url}/ada/book/r/1.json`)).json()) as Record<
        string,
        unknown
      >[];
      expect(Object.keys(readings[0] ?? {})).toEqual([
        'station',
        'taken',
        'temperature_c',
        'checked',
      ]);
      const stations = await (await fetch(`${url}/ada/book/r/book.csv`)).text();
      expect(stations.split('\n')[0]).toBe('id,name,region,opened,elevation_m');

      const second = await runData(['publish', book, '--name', 'book2', '--sheets', '2'], { env });
      expect(second.code).toBe(0);
      const one = (await (await fetch(`${url}/ada/book2/datapackage.json`)).json()) as {
        resources: { name: string; dialect?: { sheetName?: string } }[];
      };
      expect(one.resources[0]).toMatchObject({
        name: 'book2',
        dialect: { sheetName: 'readings' },
      });

      for (const missing of ['3', 'prices', '1,prices']) {
        const refused = await runData(['publish', book, '--name', 'book3', '--sheets', missing], {
          env,
        });
        expect(refused.code).toBe(2);
        expect(refused.err).toContain('its sheets are 1. "stations", 2. "readings"');
      }
      const empty = await runData(['publish', book, '--name', 'book3', '--sheets', '1,'], { env });
      expect(empty.code).toBe(2);
      const noBook = await runData(['publish', join(EXAMPLES, 'cities'), '--sheets', 'all'], {
        env,
      });
      expect(noBook.code).toBe(2);
      expect(noBook.err).toMatch(/has none/);
    });
  });

  it('publishes a folder fetched with data get again as it is, deriving the copies anew', async () => {
    const work = tempDir();
    try {
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        const env = { DATA_API: url, DATA_TOKEN: jwt };
        const cities = join(EXAMPLES, 'cities');
        expect((await runData(['publish', cities], { env, cwd: work })).code).toBe(0);
        const got = await runData(['get', 'ada/world-cities', '--out', 'copy'], { env, cwd: work });
        expect(got.code).toBe(0);
        const saved = JSON.parse(readFileSync(join(work, 'copy', 'datapackage.json'), 'utf8')) as {
          resources: { name: string }[];
        };
        expect(saved.resources.map((resource) => resource.name)).toEqual(['countries', 'cities']);
        const again = await runData(['publish', 'copy', '--force'], { env, cwd: work });
        expect(again.err).not.toMatch(/^error/m);
        expect(again.code).toBe(0);
        const descriptor = (await (
          await fetch(`${url}/ada/world-cities/datapackage.json`)
        ).json()) as { resources: { name: string }[] };
        expect(descriptor.resources.map((resource) => resource.name)).toEqual(CITIES_PUBLISHED);
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
