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
