/**
 * Derived copies of tables whose names share a last part (`a/t`, `b/t`, `t`) or hold `..`
 * (`a/../t`, which the v1 name pattern takes): each table's CSV, JSON and Parquet copies and
 * its entries in the zip hold its own rows, at `/r/<name>.<ext>` with the name's `/` written
 * `%2F`, at the paths its descriptor names, and in the table viewer's rows. Before, the copy
 * cache kept one file, `t_csv.csv`, for all of them. On this run's engines (SQLite and a
 * folder; PostgreSQL and Swift's S3 under --project postgres-swift).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedFile } from '../../packages/core/src/model/derived.js';
import { browserLogin, publish, runData, tempDir, waitForState, withHub } from './helpers.js';
import { zipEntries } from '../helpers/unzip.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each table, the file it is published from, and its own rows (id, name). */
const TABLES = [
  { name: 'a/t', path: 'a/t.csv', rows: [[1, 'from a/t']] },
  {
    name: 'b/t',
    path: 'b/t.csv',
    rows: [
      [2, 'from b/t'],
      [3, 'b again'],
    ],
  },
  { name: 't', path: 't.csv', rows: [[4, 'from t']] },
  { name: 'a/../t', path: 'c/t.csv', rows: [[5, 'from a/../t']] },
  { name: 'x', path: 'x/same.csv', rows: [[6, 'from x']] },
  { name: 'y', path: 'y/same.csv', rows: [[7, 'from y']] },
] as const;

type Resource = { name: string; path?: string; datahub?: { type: string } };

beforeAll(() => {
  for (const table of TABLES) {
    mkdirSync(join(dir, table.path, '..'), { recursive: true });
    const lines = ['id,name', ...table.rows.map((row) => row.join(','))];
    writeFileSync(join(dir, table.path), `${lines.join('\n')}\n`);
  }
  const fields = [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
  ];
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: 'same-names',
      resources: TABLES.map((table) => ({
        name: table.name,
        path: table.path,
        schema: { fields },
      })),
    }),
  );
});

const csvOf = (rows: readonly (readonly unknown[])[]) =>
  ['id,name', ...rows.map((row) => row.join(','))].join('\n') + '\n';
const jsonOf = (rows: readonly (readonly unknown[])[]) => rows.map(([id, name]) => ({ id, name }));

async function bytesOf(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status, `${url}: ${await response.clone().text()}`).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

/** A Parquet file's rows as DuckDB, a reader no one here wrote, reads them. */
async function parquetRows(bytes: Buffer): Promise<unknown[][]> {
  const file = join(dir, `read-${String(Math.random()).slice(2)}.parquet`);
  writeFileSync(file, bytes);
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT id, name FROM read_parquet('${file}') ORDER BY id`,
    );
    return reader.getRowsJson().map(([id, name]) => [Number(id), name]);
  } finally {
    connection.closeSync();
  }
}

describe('derivedFile', () => {
  it('keeps a plain name as its path and writes every other name as one file of its own', () => {
    expect(derivedFile('a/t_csv', 'csv')).toBe('a/t_csv.csv');
    expect(derivedFile('t_csv', 'csv')).toBe('t_csv.csv');
    expect(derivedFile('a/../t_csv', 'csv')).toBe('~a~2F~2E~2E~2Ft_csv.csv');
    expect(derivedFile('my table_csv', 'csv')).toBe('~my~20table_csv.csv');
    expect(derivedFile('Zürich_json', 'json')).toBe('~Z~C3~BCrich_json.json');
    const names = ['a/t', 'a//t', '/a/t', 'a/t/', './t', 't', '.t', 'a/.t', '~t', '~7Et', '%7Et'];
    const files = names.map((name) => derivedFile(name, 'csv'));
    expect(new Set(files).size).toBe(names.length);
    for (const file of files) {
      const parts = file.split('/');
      expect(
        parts.every((part) => part !== '' && !part.startsWith('.')),
        file,
      ).toBe(true);
    }
  });
});

describe('copies of tables whose names share a last part', () => {
  it("answers each table's own rows in every copy, at every address, and in the zip", async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const state = await waitForState(url, (await publish(url, jwt, dir)).flowId);
      expect(state.state, JSON.stringify(state)).toBe('SUCCEEDED');
      const base = `${url}/ada/same-names`;
      const descriptor = (await (await fetch(`${base}/datapackage.json`)).json()) as {
        resources: Resource[];
      };
      const paths = descriptor.resources.map((resource) => resource.path);
      expect(new Set(paths).size, paths.join(' ')).toBe(paths.length);
      for (const table of TABLES) {
        const named = encodeURIComponent(table.name);
        // `a/../t`'s copies cannot be asked for by its name (a path trick), only by index.
        const asked = table.name.includes('..') ? String(TABLES.indexOf(table)) : named;
        for (const root of [base, `${base}/v/1`]) {
          expect((await bytesOf(`${root}/r/${asked}.csv`)).toString(), table.name).toBe(
            csvOf(table.rows),
          );
          expect(JSON.parse((await bytesOf(`${root}/r/${asked}.json`)).toString())).toEqual(
            jsonOf(table.rows),
          );
          expect(await parquetRows(await bytesOf(`${root}/r/${asked}.parquet`))).toEqual(
            table.rows,
          );
        }
        // At the path the descriptor names, as a reader of it resolves it.
        const csv = descriptor.resources.find((each) => each.name === `${table.name}_csv`);
        expect(csv?.path).toBe(`_derived/${derivedFile(`${table.name}_csv`, 'csv')}`);
        expect(
          (
            await bytesOf(
              `${base}/${String(csv?.path).split('/').map(encodeURIComponent).join('/')}`,
            )
          ).toString(),
        ).toBe(csvOf(table.rows));
        // The table viewer's rows, sorted (from the Parquet copy).
        const page = (await (
          await fetch(`${base}/rows?table=${named}&sort=id&order=desc`)
        ).json()) as { rows: unknown[][] };
        expect(page.rows, table.name).toEqual([...table.rows].reverse());
      }
      expect(descriptor.resources.find((each) => each.name === 'a/../t_csv')?.path).toBe(
        '_derived/~a~2F~2E~2E~2Ft_csv.csv',
      );
      const zip = await zipEntries(await bytesOf(`${base}/r/same-names_zip.zip`));
      for (const table of TABLES) {
        const csv = descriptor.resources.find((each) => each.name === `${table.name}_csv`);
        const json = descriptor.resources.find((each) => each.name === `${table.name}_json`);
        expect(zip.get(String(csv?.path))?.toString(), table.name).toBe(csvOf(table.rows));
        expect(JSON.parse(zip.get(String(json?.path))?.toString() ?? '')).toEqual(
          jsonOf(table.rows),
        );
        expect(zip.get(table.path)?.toString()).toBe(csvOf(table.rows));
      }
    });
  });

  it('refuses a name whose parts are path tricks, and a file name more than one table has', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await waitForState(url, (await publish(url, jwt, dir)).flowId);
      const base = `${url}/ada/same-names`;
      for (const trick of ['a%2F..%2Ft.csv', '%2Ft.csv', 'a%2F%2Ft.csv', 'a%2F.%2Ft.csv']) {
        const response = await fetch(`${base}/r/${trick}`);
        expect(response.status, trick).toBe(400);
        expect(await response.json()).toEqual({ error: 'malformed path' });
      }
      // The dataset page links each table's own file and copies: every link answers, and
      // each original's is its own (`a/t`'s is not `/r/t.csv`, which is `t`'s).
      const page = await (await fetch(base)).text();
      const links = [...page.matchAll(/href="(\/ada\/same-names\/r\/[^"]+)"/g)].map(
        (match) => match[1] ?? '',
      );
      for (const [index, table] of TABLES.entries()) {
        const own =
          table.path.split('/').at(-1) === `${table.name}.csv` ? 't.csv' : `${String(index)}.csv`;
        expect(links, table.name).toContain(`/ada/same-names/r/${own}`);
        if (!table.name.includes('..'))
          expect(links).toContain(`/ada/same-names/r/${encodeURIComponent(table.name)}.json`);
        expect((await bytesOf(`${url}/ada/same-names/r/${own}`)).toString()).toBe(
          csvOf(table.rows),
        );
      }
      expect(links).toContain('/ada/same-names/r/3.json');
      for (const link of links)
        expect((await fetch(`${url}${link}`, { method: 'HEAD' })).status, link).toBe(200);
      // `same.csv` is the file name of `x` and `y`: it names neither.
      expect((await fetch(`${base}/r/same.csv`)).status).toBe(404);
      // `t.csv` is the file name of `a/t`, `b/t` and `t`, and `t`'s name in its format.
      expect((await bytesOf(`${base}/r/t.csv`)).toString()).toBe(csvOf(TABLES[2].rows));
    });
  });
  it('data get --format csv saves each table at a file of its own', async () => {
    const work = tempDir();
    try {
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        await waitForState(url, (await publish(url, jwt, dir)).flowId);
        const env = { DATA_API: url, DATA_TOKEN: jwt };
        const got = await runData(['get', 'ada/same-names', '--format', 'csv', '--out', 'got'], {
          env,
          cwd: work,
        });
        expect(got.code, got.err).toBe(0);
        const saved = JSON.parse(readFileSync(join(work, 'got', 'datapackage.json'), 'utf8')) as {
          resources: Resource[];
        };
        for (const table of TABLES) {
          const path = saved.resources.find((each) => each.name === table.name)?.path;
          expect(path).toBe(`data/${derivedFile(table.name, 'csv')}`);
          expect(readFileSync(join(work, 'got', String(path)), 'utf8'), table.name).toBe(
            csvOf(table.rows),
          );
        }
        expect((await runData(['validate', 'got'], { env, cwd: work })).code).toBe(0);
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('reads a revision an older hub recorded, whose copy of a/../t has a path with ..', async () => {
    await withHub({}, async ({ url, hub }) => {
      const jwt = await browserLogin(url);
      await waitForState(url, (await publish(url, jwt, dir)).flowId);
      // As a hub before core's derivedFile recorded it: each copy at _derived/<its name>.<format>.
      const ada = await hub.store.userByName('ada');
      const at = { ownerid: String(ada?.userid), dataset: 'same-names', revision: 1 };
      const revision = await hub.store.revision(at.ownerid, at.dataset, '1');
      const descriptor = JSON.parse(String(revision?.descriptor)) as { resources: Resource[] };
      for (const resource of descriptor.resources)
        if (resource.name.startsWith('a/../t_'))
          resource.path = `_derived/${resource.name}.${String(resource.path).split('.').at(-1) ?? ''}`;
      expect(descriptor.resources.map((resource) => resource.path)).toContain(
        '_derived/a/../t_csv.csv',
      );
      await hub.store.updateRevision(at, { descriptor: JSON.stringify(descriptor) });
      const base = `${url}/ada/same-names`;
      const index = String(TABLES.findIndex((table) => table.name === 'a/../t'));
      expect((await bytesOf(`${base}/r/${index}.csv`)).toString()).toBe(csvOf(TABLES[3].rows));
      expect(JSON.parse((await bytesOf(`${base}/v/1/r/${index}.json`)).toString())).toEqual(
        jsonOf(TABLES[3].rows),
      );
      expect((await bytesOf(`${base}/r/a%2Ft.csv`)).toString()).toBe(csvOf(TABLES[0].rows));
      // The zip leaves out the copies whose path is a path trick, and holds the others.
      const zip = await zipEntries(await bytesOf(`${base}/r/same-names_zip.zip`));
      expect([...zip.keys()].filter((path) => path.includes('..'))).toEqual([]);
      expect(zip.get('_derived/a/t_csv.csv')?.toString()).toBe(csvOf(TABLES[0].rows));
      const inside = JSON.parse(zip.get('datapackage.json')?.toString() ?? '') as {
        resources: Resource[];
      };
      expect(inside.resources.map((resource) => resource.name)).not.toContain('a/../t_csv');
    });
  });
});

/** A package in a folder of its own: each table's file `<index>.csv` holds its rows. */
function packageOf(name: string, tables: readonly { name: string; rows: unknown[][] }[]): string {
  const at = join(dir, name);
  mkdirSync(at, { recursive: true });
  for (const [index, table] of tables.entries())
    writeFileSync(join(at, `${String(index)}.csv`), csvOf(table.rows));
  const fields = [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
  ];
  const resources = tables.map((table, index) => ({
    name: table.name,
    path: `${String(index)}.csv`,
    schema: { fields },
  }));
  writeFileSync(join(at, 'datapackage.json'), JSON.stringify({ name, resources }));
  return at;
}

/** Each table's CSV, JSON and Parquet copies, asked for by index, and its rows in the viewer. */
async function expectCopies(
  base: string,
  tables: readonly { name: string; rows: unknown[][] }[],
): Promise<void> {
  for (const [index, table] of tables.entries()) {
    const asked = `${base}/r/${String(index)}`;
    expect((await bytesOf(`${asked}.csv`)).toString(), table.name).toBe(csvOf(table.rows));
    expect(JSON.parse((await bytesOf(`${asked}.json`)).toString())).toEqual(jsonOf(table.rows));
    expect(await parquetRows(await bytesOf(`${asked}.parquet`)), table.name).toEqual(table.rows);
    const page = await fetch(`${base}/rows?table=${encodeURIComponent(table.name)}&sort=id`);
    expect(page.status, table.name).toBe(200);
    expect(((await page.json()) as { rows: unknown[][] }).rows, table.name).toEqual(table.rows);
  }
}

describe('copies of a table whose copies would be named as other tables', () => {
  const tables = [
    { name: 't', rows: [[1, 'from t']] },
    { name: 't_csv', rows: [[2, 'from t_csv']] },
    { name: 't_parquet', rows: [[3, 'from t_parquet']] },
  ];
  it("gives each table its copies, under names no table has, on the page's tabs", async () => {
    const at = packageOf('clashing-names', tables);
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const state = await waitForState(url, (await publish(url, jwt, at)).flowId);
      expect(state.state, JSON.stringify(state)).toBe('SUCCEEDED');
      const base = `${url}/ada/clashing-names`;
      const descriptor = (await (await fetch(`${base}/datapackage.json`)).json()) as {
        resources: (Resource & { datahub?: { derivedFrom?: string[] } })[];
      };
      const names = descriptor.resources.map((resource) => resource.name);
      expect(new Set(names).size, names.join(' ')).toBe(names.length);
      const copiesOf = (table: string) =>
        descriptor.resources
          .filter((resource) => resource.datahub?.derivedFrom?.[0] === table)
          .map((resource) => [resource.datahub?.type, resource.name]);
      expect(copiesOf('t')).toEqual([
        ['derived/csv', 't_csv_2'],
        ['derived/json', 't_json'],
        ['derived/preview', 't_csv_preview'],
        ['derived/parquet', 't_parquet_2'],
      ]);
      expect(copiesOf('t_csv').map(([, name]) => name)).toEqual([
        't_csv_csv',
        't_csv_json',
        't_csv_csv_preview',
        't_csv_parquet',
      ]);
      await expectCopies(base, tables);
      // By name too: `t.parquet` is t's copy, `t_csv.csv` and `t_parquet.csv` the tables.
      expect(await parquetRows(await bytesOf(`${base}/r/t.parquet`))).toEqual(tables[0]?.rows);
      expect((await bytesOf(`${base}/r/t_csv.csv`)).toString()).toBe(csvOf(tables[1]?.rows ?? []));
      expect((await bytesOf(`${base}/r/t_parquet.csv`)).toString()).toBe(
        csvOf(tables[2]?.rows ?? []),
      );
      const page = await (await fetch(base)).text();
      const tabs = [...page.matchAll(/role="tab"[^>]*><bdi>([^<]*)<\/bdi>/g)].map((m) => m[1]);
      expect(tabs).toEqual(['t', 't_csv', 't_parquet']);
    });
  });
});

describe('copies of tables whose names are too long for a file name', () => {
  // 250 letters; 90 dots, which a copy's file name writes as 271 characters.
  const tables = [
    { name: 'l'.repeat(250), rows: [[1, 'long']] },
    { name: '.'.repeat(90), rows: [[2, 'dots']] },
  ];
  it('publishes them, each copy at a file of its own', async () => {
    const at = packageOf('long-names', tables);
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const state = await waitForState(url, (await publish(url, jwt, at)).flowId);
      expect(state.state, JSON.stringify(state)).toBe('SUCCEEDED');
      const base = `${url}/ada/long-names`;
      await expectCopies(base, tables);
      const descriptor = (await (await fetch(`${base}/datapackage.json`)).json()) as {
        resources: Resource[];
      };
      for (const resource of descriptor.resources)
        for (const part of String(resource.path).split('/'))
          expect(part.length, resource.path).toBeLessThanOrEqual(200);
      // The preview beside the descriptor, at the path the descriptor names.
      const preview = descriptor.resources.find(
        (each) => each.name === `${'l'.repeat(250)}_csv_preview`,
      );
      expect(
        JSON.parse((await bytesOf(`${base}/${String(preview?.path)}`)).toString()),
      ).toBeTruthy();
    });
  });
});
