import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folder } from '../helpers/fixtures.js';
import { writeOds, writeXlsx } from '../helpers/workbook.js';
import { browserLogin, CITIES_DIR, publish, waitForState, withHub } from '../hub/helpers.js';
import { runCli } from '../helpers/cli.js';

interface InfoResource {
  name: string;
  format: string;
  encoding?: string;
  delimiter?: string;
  headerRows?: number[];
  rows?: number;
  preview?: string[][];
}

async function infoOf(path: string): Promise<InfoResource> {
  const shown = await runCli(['--json', 'info', path]);
  if (shown.code !== 0) throw new Error(`info ${path}: ${shown.err}`);
  const info = JSON.parse(shown.out) as { resources: InfoResource[] };
  expect(info.resources).toHaveLength(1);
  return info.resources[0] as InfoResource;
}

async function validationOf(path: string) {
  const validated = await runCli(['--json', 'validate', path]);
  const report = JSON.parse(validated.out) as {
    tasks: { labels: string[]; stats: { rows: number }; warnings: string[]; errors: unknown[] }[];
  };
  expect(report.tasks).toHaveLength(1);
  return report.tasks[0] as (typeof report.tasks)[number];
}

const text = (value: string): string => `<c t="inlineStr"><is><t>${value}</t></is></c>`;
const cell = (value: string): string =>
  `<table:table-cell office:value-type="string"><text:p>${value}</text:p></table:table-cell>`;

/** Files as people have them, and what reading each must find. */
async function corpus(): Promise<
  {
    file: string;
    format: string;
    encoding?: string;
    delimiter?: string;
    labels: string[];
    rows: number;
  }[]
> {
  const dir = folder({
    'latin1.csv': Buffer.from('stadt;preis\nMünchen;"138,72\nund mehr"\nKöln;1\n', 'latin1'),
    'bom.csv': '\uFEFFid,name\n1,"two\nlines"\n2,b\n3,c\n',
    'tabs.tsv': 'a\tb\n1\t2\n',
  });
  await writeXlsx(
    join(dir, 'titled.xlsx'),
    `<row r="1">${text('Population by city, 2024')}</row>` +
      `<row r="2">${text('city')}${text('population')}</row>` +
      `<row r="3">${text('Berlin')}<c><v>3850809</v></c></row>` +
      `<row r="4">${text('Hamburg')}<c><v>1945532</v></c></row>`,
  );
  await writeOds(
    join(dir, 'plain.ods'),
    `<table:table-row>${cell('x')}${cell('y')}</table:table-row>` +
      `<table:table-row>${cell('1')}${cell('2')}</table:table-row>`,
  );
  return [
    {
      file: join(dir, 'latin1.csv'),
      format: 'csv',
      encoding: 'windows-1252',
      delimiter: ';',
      labels: ['stadt', 'preis'],
      rows: 2,
    },
    {
      file: join(dir, 'bom.csv'),
      format: 'csv',
      encoding: 'utf-8',
      delimiter: ',',
      labels: ['id', 'name'],
      rows: 3,
    },
    {
      file: join(dir, 'tabs.tsv'),
      format: 'tsv',
      encoding: 'utf-8',
      delimiter: '\t',
      labels: ['a', 'b'],
      rows: 1,
    },
    { file: join(dir, 'titled.xlsx'), format: 'xlsx', labels: ['city', 'population'], rows: 2 },
    { file: join(dir, 'plain.ods'), format: 'ods', labels: ['x', 'y'], rows: 1 },
  ];
}

describe('data info reads a file as data validate does', () => {
  it('agrees on format, encoding, dialect, header and row count over the same files', async () => {
    for (const expected of await corpus()) {
      const info = await infoOf(expected.file);
      const task = await validationOf(expected.file);
      expect(task.errors, expected.file).toEqual([]);
      expect(info.format, expected.file).toBe(expected.format);
      expect(info.encoding, expected.file).toBe(expected.encoding);
      expect(info.delimiter, expected.file).toBe(expected.delimiter);
      expect(info.preview?.[0], expected.file).toEqual(expected.labels);
      expect(task.labels, expected.file).toEqual(expected.labels);
      expect(info.rows, expected.file).toBe(expected.rows);
      expect(task.stats.rows, expected.file).toBe(expected.rows);
    }
  });

  it('shows Latin-1 as its letters and a quoted line break inside its cell', async () => {
    const [latin1] = await corpus();
    const info = await infoOf(latin1?.file ?? '');
    expect(info.preview).toEqual([
      ['stadt', 'preis'],
      ['München', '138,72\nund mehr'],
      ['Köln', '1'],
    ]);
  });
});

describe('data info of a local workbook', () => {
  it('names its sheets and counts the rows of each', async () => {
    const book = join(import.meta.dirname, '../fixtures/sheets/book.xlsx');
    const info = (await infoOf(book)) as InfoResource & {
      sheets?: { name: string; rows?: number }[];
    };
    expect(info.format).toBe('xlsx');
    expect(info.sheets?.map((sheet) => sheet.name)).toEqual(['cities', 'problems', 'offset']);
    expect(info.sheets?.[0]?.rows).toBe(info.rows);
    expect(info.rows).toBe((await validationOf(book)).stats.rows);
    for (const sheet of info.sheets ?? []) expect(sheet.rows).toBeGreaterThan(0);
  });
});

describe('data info of a hub dataset', () => {
  it("lists its tables, not the hub's copies of them", async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      await waitForState(url, (await publish(url, ada, CITIES_DIR)).flowId);
      const served = (await (await fetch(`${url}/ada/world-cities/datapackage.json`)).json()) as {
        resources: { name: string }[];
      };
      // The hub names its copies in the descriptor it serves…
      expect(served.resources.map((resource) => resource.name)).toContain('cities_csv');
      const shown = await runCli(['--json', 'info', 'ada/world-cities'], {
        env: { DATA_API: url },
        fetch: globalThis.fetch,
      });
      expect(shown.code, shown.err).toBe(0);
      const info = JSON.parse(shown.out) as {
        resources: { name: string; rows?: number; preview?: string[][] }[];
      };
      // …and info shows the tables that were published.
      expect(info.resources.map((resource) => resource.name)).toEqual(['countries', 'cities']);
      expect(info.resources[1]?.preview?.[1]?.[1]).toBe('Paris');
      // The rows the hub counted as it validated each table.
      expect(info.resources.map((resource) => resource.rows)).toEqual([5, 7]);
    });
  });
});
