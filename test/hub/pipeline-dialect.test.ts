/**
 * The pipeline reads a CSV's dialect as `data validate` reads it: a quote character other
 * than `"` and a delimiter other than `,`, sniffed when the descriptor declares none (the
 * pipeline then declares what it found) or as declared. What the hub publishes, its
 * validation report and its JSON and CSV copies, agrees with the local reading of the same
 * files.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import type { Report } from '../../packages/core/src/validator/index.js';
import { check } from '../helpers/fixtures.js';
import { browserLogin, publish, tempDir, waitForState, withHub } from './helpers.js';

const root = tempDir();
afterAll(() => rmSync(root, { recursive: true, force: true }));

const FIELDS = [
  { name: 'id', type: 'integer' },
  { name: 'name', type: 'string' },
  { name: 'note', type: 'string' },
];

/** A package of CSV files, each a resource with the given dialect (or none). */
function csvPackage(
  name: string,
  files: { name: string; text: string; dialect?: Record<string, string> }[],
): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  for (const file of files) writeFileSync(join(dir, `${file.name}.csv`), file.text);
  const resources = files.map((file) => ({
    name: file.name,
    path: `${file.name}.csv`,
    ...(file.dialect ? { dialect: file.dialect } : {}),
    schema: { fields: FIELDS },
  }));
  writeFileSync(join(dir, 'datapackage.json'), JSON.stringify({ name, resources }));
  return dir;
}

/** `'` quotes cells holding commas, and a quote inside one is doubled. */
const SINGLE_QUOTED = [
  'id,name,note',
  `1,'Smith, John','said ''hi'', then left'`,
  `2,'O''Brien, Pat',plain`,
  `3,Ada,'a, b, c'`,
  '',
].join('\n');

const quotes = csvPackage('quotes', [
  // Sniffed only where no `"` is in the sample (validator/table/dialect.ts).
  { name: 'sniffed', text: SINGLE_QUOTED },
  // Declared, `"` is an ordinary letter.
  {
    name: 'declared',
    text: SINGLE_QUOTED.replace(`'a, b, c'`, `'He said "no", twice'`),
    dialect: { quoteChar: "'" },
  },
]);

const semicolons = csvPackage('semicolons', [
  {
    name: 'sniffed',
    text: 'id;name;note\n1;"Smith; John";a, b\n2;Pat;\'single\'\n3;Ada;x\n',
  },
]);

/** The rows `data cat` prints of a local resource, as JSON. */
async function localRows(dir: string, resource: string): Promise<unknown> {
  const { code, out, err } = await runCli(['cat', dir, resource, '--format', 'json'], {
    env: { DATA_CONFIG_DIR: join(root, 'config') },
  });
  expect(code, err).toBe(0);
  return JSON.parse(out);
}

/** What two reports of the same files must agree on, table by table. */
function verdict(report: Report) {
  return {
    valid: report.valid,
    errors: report.errors,
    tasks: report.tasks.map((task) => ({
      name: task.name,
      valid: task.valid,
      labels: task.labels,
      rows: task.stats.rows,
      errors: task.errors,
    })),
  };
}

type Published = { resources: { name: string; dialect?: unknown }[] };

describe('the pipeline with a dialect other than the default', () => {
  it.each([
    ["' as the quote character", 'quotes', quotes, { sniffed: { quoteChar: "'" } }],
    ['; as the delimiter', 'semicolons', semicolons, { sniffed: { delimiter: ';' } }],
  ])('publishes a CSV with %s as data validate reads it', async (_what, name, dir, sniffed) => {
    const local = await check(dir);
    expect(local.valid).toBe(true);
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const state = await waitForState(url, (await publish(url, jwt, dir)).flowId);
      expect(state.state).toBe('SUCCEEDED');
      // The sniffed dialect is declared, a declared one kept: other readers read it so too.
      const descriptor = (await (
        await fetch(`${url}/ada/${name}/datapackage.json`)
      ).json()) as Published;
      const dialects = Object.fromEntries(
        descriptor.resources
          .filter((resource) => !resource.name.includes('_'))
          .map((resource) => [resource.name, resource.dialect]),
      );
      expect(dialects).toEqual(
        name === 'quotes' ? { ...sniffed, declared: { quoteChar: "'" } } : sniffed,
      );
      const report = (await (
        await fetch(`${url}/ada/${name}/validation_report.json`)
      ).json()) as Report;
      expect(verdict(report)).toEqual(verdict(local));
      for (const table of Object.keys(dialects)) {
        const rows = await localRows(dir, table);
        const copy = await fetch(`${url}/ada/${name}/r/${table}.json`);
        expect(copy.status).toBe(200);
        expect(await copy.json()).toEqual(rows);
      }
    });
  });

  it('writes the CSV copy of a single-quoted table with the default dialect', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const state = await waitForState(url, (await publish(url, jwt, quotes)).flowId);
      expect(state.state).toBe('SUCCEEDED');
      const copy = async (table: string) =>
        (await fetch(`${url}/ada/quotes/r/${table}_csv.csv`)).text();
      const rows = [
        'id,name,note',
        `1,"Smith, John","said 'hi', then left"`,
        `2,"O'Brien, Pat",plain`,
      ];
      expect(await copy('sniffed')).toBe([...rows, '3,Ada,"a, b, c"', ''].join('\n'));
      expect(await copy('declared')).toBe(
        [...rows, '3,Ada,"He said ""no"", twice"', ''].join('\n'),
      );
    });
  });
});
