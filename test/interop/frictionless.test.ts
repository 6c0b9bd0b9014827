/**
 * The Frictionless JavaScript libraries (datapackage-js and tableschema-js, from the npm
 * registry) read a hub's datasets as any reader of the specification would: by the
 * descriptor's URL, by the zip, and by a revision's own address.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import datapackage from 'datapackage';
import tableschema from 'tableschema';
import yauzl from 'yauzl';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { browserLogin, EXAMPLES, withHub } from '../hub/helpers.js';
import { people, published, writePackage, type Table } from './helpers.js';

const { Package } = datapackage;

/** A table's rows as the libraries cast them by its schema (every field here is a number or text). */
function rowsOf(table: Table): Record<string, unknown>[] {
  return table.rows.map((row) =>
    Object.fromEntries(
      table.fields.map((field, i) => [
        field.name,
        field.type === 'integer' ? Number(row[i]) : row[i],
      ]),
    ),
  );
}

function places(): Table {
  return {
    name: 'places',
    fields: [
      { name: 'city', type: 'string' },
      { name: 'population', type: 'integer' },
    ],
    rows: [
      ['Lisbon', '545000'],
      ['Porto', '232000'],
    ],
  };
}

/** What a declared `hash` says of some bytes: `<algorithm>:<hex>`, or MD5 alone. */
function hashMatches(declared: string, bytes: Buffer): boolean {
  const [algorithm, hex] = declared.includes(':') ? declared.split(':') : ['md5', declared];
  return (
    createHash(algorithm ?? 'md5')
      .update(bytes)
      .digest('hex') === hex
  );
}

/** The names of a zip's entries, in its order (a folder's ends with a slash). */
async function entryNames(zipped: Buffer): Promise<string[]> {
  const zip = await yauzl.fromBufferPromise(zipped, { lazyEntries: true });
  const names: string[] = [];
  for await (const entry of zip.eachEntry()) names.push(entry.fileName);
  zip.close();
  return names;
}

/** The folders an entry sits in, outermost first: `a/b/c.csv` → `a/`, `a/b/`. */
function foldersOf(name: string): string[] {
  // A folder's own entry (`data/`) is not among the folders it sits in.
  const parts = name.replace(/\/$/, '').split('/').slice(0, -1);
  return parts.map((_, i) => `${parts.slice(0, i + 1).join('/')}/`);
}

type Loaded = Awaited<ReturnType<typeof Package.load>>;

/**
 * Reads every resource of a loaded package: the tables' rows as the libraries cast them, the
 * JSON copies' rows, every file's bytes against its declared size and hash.
 */
async function readAll(pkg: Loaded, tables: Table[]): Promise<void> {
  expect(pkg.errors.map(String)).toEqual([]);
  const expected = new Map(tables.map((table) => [table.name, rowsOf(table)]));
  const read = new Set<string>();
  for (const resource of pkg.resources) {
    const { name, descriptor } = resource;
    const source = descriptor.datahub?.derivedFrom?.[0] ?? name;
    const rows = expected.get(source);
    const bytes = await resource.rawRead();
    if (descriptor.bytes !== undefined) expect(bytes.length, name).toBe(descriptor.bytes);
    if (descriptor.hash !== undefined) expect(hashMatches(descriptor.hash, bytes), name).toBe(true);
    if (resource.tabular) {
      expect(await resource.read({ keyed: true }), name).toEqual(rows);
      read.add(source);
    } else if (descriptor.datahub?.type === 'derived/json')
      expect(JSON.parse(bytes.toString('utf8')), name).toEqual(rows);
    else if (descriptor.format === 'parquet') expect(bytes.subarray(0, 4).toString()).toBe('PAR1');
  }
  expect([...read].sort()).toEqual([...expected.keys()].sort());
}

describe('the Frictionless JavaScript libraries on a hub', () => {
  beforeEach(() => {
    // axios, which both libraries fetch with, takes a proxy from the environment.
    for (const name of ['HTTP_PROXY', 'http_proxy', 'HTTPS_PROXY', 'https_proxy'])
      vi.stubEnv(name, '');
  });

  it("Package.load of a dataset by its URL reads every resource's rows", async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const tables = [people(1), places()];
      await published(url, jwt, writePackage('atlas', tables));
      const pkg = await Package.load(`${url}/ada/atlas/datapackage.json`);
      expect(pkg.resources.map((resource) => resource.name)).toEqual(
        expect.arrayContaining(['people', 'places', 'people_csv', 'places_json', 'atlas_zip']),
      );
      await readAll(pkg, tables);
    });
  });

  it("reads the copies of an inline table (examples/sales-v2's stores) as files", async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await published(url, jwt, join(EXAMPLES, 'sales-v2'));
      const pkg = await Package.load(`${url}/ada/shop-sales/datapackage.json`);
      const stores = [
        { store: 'north', manager: 'Grace', since: [2019, 5] },
        { store: 'south', manager: 'Alan', since: [2021, 11] },
      ];
      const csv = pkg.getResource('stores_csv');
      expect(csv?.source).toBe(`${url}/ada/shop-sales/_derived/stores_csv.csv`);
      expect(await csv?.read({ keyed: true })).toEqual(stores);
      const json = await pkg.getResource('stores_json')?.rawRead();
      expect(JSON.parse(json?.toString('utf8') ?? 'null')).toEqual([
        { store: 'north', manager: 'Grace', since: '2019-05' },
        { store: 'south', manager: 'Alan', since: '2021-11' },
      ]);
      const parquet = await pkg.getResource('stores_parquet')?.rawRead();
      expect(parquet?.subarray(0, 4).toString()).toBe('PAR1');
    });
  });

  it("Package.load of the dataset's zip, saved as a file, reads every table", async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const tables = [people(1), places()];
      await published(url, jwt, writePackage('atlas', tables));
      const descriptorUrl = `${url}/ada/atlas/datapackage.json`;
      const descriptor = (await (await fetch(descriptorUrl)).json()) as {
        resources: { path: string; datahub?: { type?: string } }[];
      };
      const zip = descriptor.resources.find((resource) => resource.datahub?.type === 'derived/zip');
      expect(zip).toBeDefined();
      const answer = await fetch(new URL(zip?.path ?? '', descriptorUrl));
      expect(answer.status).toBe(200);
      const zipped = Buffer.from(await answer.arrayBuffer());
      // datapackage-js writes each entry where it names it and makes no folder for it: the
      // zip lists a folder (`data/`) before the files in it, as `zip -r` does.
      const names = await entryNames(zipped);
      expect(names).toContain('datapackage.json');
      for (const [index, name] of names.entries())
        for (const folder of foldersOf(name))
          expect(names.slice(0, index), `${folder} before ${name}`).toContain(folder);
      const file = join(mkdtempSync(join(tmpdir(), 'data-interop-')), 'atlas.zip');
      writeFileSync(file, zipped);
      const pkg = await Package.load(file);
      await readAll(pkg, tables);
    });
  });

  it("a revision's descriptor reads that revision's rows after the next is published", async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await published(url, jwt, writePackage('ages', [people(1)]));
      await published(url, jwt, writePackage('ages', [people(2)]));

      const first = `${url}/ada/ages/v/1/datapackage.json`;
      const old = await Package.load(first);
      for (const resource of old.resources)
        expect(resource.source.startsWith(`${url}/ada/ages/v/1/`), resource.source).toBe(true);
      await readAll(old, [people(1)]);

      const latest = await Package.load(`${url}/ada/ages/datapackage.json`);
      await readAll(latest, [people(2)]);
      const second = await Package.load(`${url}/ada/ages/v/2/datapackage.json`);
      await readAll(second, [people(2)]);

      // tableschema-js alone, on a revision's file with that revision's schema.
      const schema = (old.descriptor.resources[0] as { schema?: object }).schema;
      const table = await tableschema.Table.load(`${url}/ada/ages/v/1/r/people.csv`, { schema });
      // Its types say read() returns the rows; it returns a promise of them.
      expect(await Promise.resolve(table.read({ keyed: true }))).toEqual(rowsOf(people(1)));
    });
  });

  it("the old address of a revision, datapackage.json?v=1, reads that revision's rows", async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await published(url, jwt, writePackage('ages', [people(1)]));
      await published(url, jwt, writePackage('ages', [people(2)]));
      // datapackage-js resolves the descriptor's relative paths against the address it was
      // given, not the one a redirect leads to: the issue's first finding was revision 2's
      // rows read under revision 1's descriptor, bytes and hash.
      const legacy = await Package.load(`${url}/ada/ages/datapackage.json?v=1`);
      const sources = legacy.resources.map((resource) => resource.source);
      for (const source of sources)
        expect(source.startsWith(`${url}/ada/ages/v/1/`), sources.join('\n')).toBe(true);
      await readAll(legacy, [people(1)]);
    });
  });
});
