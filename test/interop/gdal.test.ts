/**
 * GDAL (Debian's gdal-bin) reads a hub's files over HTTP through /vsicurl/: a HEAD for the
 * length, then ranges of 16 KB, on copies the hub has not made yet as on originals.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { browserLogin, withHub } from '../hub/helpers.js';
import { people, published, runProgram, runs, writePackage, type Table } from './helpers.js';

const OGRINFO = '/usr/bin/ogrinfo';

/**
 * Whether this GDAL has the (Geo)Parquet driver: Debian 12's 3.6 does not, which leaves the
 * Parquet copies to the other readers (DuckDB reads them in test/hub/parquet-copies.test.ts).
 */
const PARQUET =
  existsSync(OGRINFO) &&
  /parquet/i.test(execFileSync(OGRINFO, ['--formats'], { encoding: 'utf8' }));

/** More rows than GDAL's first read of 16 KB, so that it reads the rest by ranges. */
const ROWS = 2000;

function places(): Table {
  return {
    name: 'places',
    fields: [
      { name: 'code', type: 'string' },
      { name: 'population', type: 'integer' },
    ],
    rows: Array.from({ length: ROWS }, (_, i) => [`P${String(i)}`, String(1000 + i)]),
  };
}

/** `ogrinfo -al -so` of an address: its summary (driver, fields, feature count). */
async function summary(url: string): Promise<string> {
  const run = await runProgram(OGRINFO, ['-ro', '-al', '-so', `/vsicurl/${url}`]);
  expect(run.err, url).not.toMatch(/ERROR/);
  expect(run.code, `${url}: ${run.err}`).toBe(0);
  return run.out;
}

describe.skipIf(!runs(OGRINFO))("GDAL's /vsicurl/ on a hub", () => {
  it('reads CSV copies not made yet: the feature count and the fields', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      // Semicolons: the CSV copies are the hub's to make, when first asked for.
      await published(
        url,
        jwt,
        writePackage('survey', [people(1, ROWS), places()], {
          delimiter: ';',
        }),
      );
      const latest = await summary(`${url}/ada/survey/r/people_csv.csv`);
      expect(latest).toMatch(`Feature Count: ${String(ROWS)}`);
      for (const field of ['id', 'name', 'age']) expect(latest).toMatch(`${field}: String`);

      // A revision's address, the copy's path as its descriptor gives it.
      const descriptorUrl = `${url}/ada/survey/v/1/datapackage.json`;
      const descriptor = (await (await fetch(descriptorUrl)).json()) as {
        resources: { name: string; path: string }[];
      };
      const copy = descriptor.resources.find((resource) => resource.name === 'places_csv');
      expect(copy).toBeDefined();
      const versioned = await summary(new URL(copy?.path ?? '', descriptorUrl).href);
      expect(versioned).toMatch(`Feature Count: ${String(ROWS)}`);
      expect(versioned).toMatch('code: String');
    });
  });

  it('reads an original by its index', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await published(url, jwt, writePackage('census', [places()]));
      expect(await summary(`${url}/ada/census/r/0.csv`)).toMatch(`Feature Count: ${String(ROWS)}`);
    });
  });

  it.runIf(PARQUET)(
    "reads a Parquet copy not made yet, where GDAL has the Parquet driver (Debian 12's has none)",
    async () => {
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        await published(url, jwt, writePackage('census', [places()]));
        const read = await summary(`${url}/ada/census/r/0.parquet`);
        expect(read).toMatch(`Feature Count: ${String(ROWS)}`);
        expect(read).toMatch(/population: Integer/);
      });
    },
  );
});
