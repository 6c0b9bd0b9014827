import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folder } from '../helpers/fixtures.js';
import { writeXlsx } from '../helpers/workbook.js';
import { runCli } from '../helpers/cli.js';

interface Field {
  name: string;
  type: string;
  format?: string;
  decimalChar?: string;
  groupChar?: string;
}
interface Resource {
  name: string;
  path: string;
  format?: string;
  encoding?: string;
  dialect?: Record<string, unknown>;
  schema?: { fields: Field[]; primaryKey?: string[] };
}

/** `data init` of the folder, then its descriptor and `data validate --json` of it. */
async function initAndValidate(dir: string) {
  const init = await runCli(['init', dir]);
  expect(init.code, init.err).toBe(0);
  const descriptor = JSON.parse(readFileSync(join(dir, 'datapackage.json'), 'utf8')) as {
    $schema?: string;
    resources: Resource[];
  };
  const validated = await runCli(['--json', 'validate', dir]);
  const report = JSON.parse(validated.out) as {
    valid: boolean;
    warnings: string[];
    tasks: { name: string; warnings: string[]; errors: unknown[] }[];
  };
  const byName = Object.fromEntries(
    descriptor.resources.map((resource) => [resource.name, resource]),
  );
  return { init, descriptor, byName, report };
}

/** The report says valid with no warning at all: every property init wrote is understood. */
function expectCleanlyValid(report: Awaited<ReturnType<typeof initAndValidate>>['report']) {
  expect(report.tasks.flatMap((task) => task.errors)).toEqual([]);
  expect(report.valid).toBe(true);
  expect([...report.warnings, ...report.tasks.flatMap((task) => task.warnings)]).toEqual([]);
}

const latin1 = Buffer.from(
  'stadt;preis;datum\nMünchen;138,72;28.02.2024\nKöln;1.204,5;01.03.2024\nDüsseldorf;7;15.12.2023\n',
  'latin1',
);

describe('data init writes what it read', () => {
  it('a Latin-1 file with ";", decimal commas and dd.mm.yyyy dates: encoding, dialect, decimalChar and the date format', async () => {
    const dir = folder({ 'staedte.csv': latin1 });
    const { byName, report } = await initAndValidate(dir);
    const staedte = byName.staedte;
    expect(staedte?.encoding).toBe('windows-1252');
    expect(staedte?.dialect).toEqual({ delimiter: ';' });
    expect(staedte?.schema?.fields).toEqual([
      { name: 'stadt', type: 'string' },
      { name: 'preis', type: 'number', decimalChar: ',', groupChar: '.' },
      { name: 'datum', type: 'date', format: '%d.%m.%Y' },
    ]);
    expectCleanlyValid(report);
  });

  it('a BOM stays out of the first field name', async () => {
    const dir = folder({ 'bom.csv': '\uFEFFid,name\n1,a\n2,b\n' });
    const { byName, report } = await initAndValidate(dir);
    expect(byName.bom?.schema?.fields.map((field) => field.name)).toEqual(['id', 'name']);
    expect(byName.bom?.encoding).toBeUndefined();
    expectCleanlyValid(report);
  });

  it("a sheet's title row above its header: the header row is written, the fields are the header's", async () => {
    const dir = folder({});
    const text = (value: string): string => `<c t="inlineStr"><is><t>${value}</t></is></c>`;
    await writeXlsx(
      join(dir, 'population.xlsx'),
      `<row r="1">${text('Population by city, 2024')}</row>` +
        `<row r="2">${text('city')}${text('population')}</row>` +
        `<row r="3">${text('Berlin')}<c><v>3850809</v></c></row>` +
        `<row r="4">${text('Hamburg')}<c><v>1945532</v></c></row>`,
    );
    const { byName, descriptor, report } = await initAndValidate(dir);
    expect(byName.population?.dialect).toEqual({ headerRows: [2] });
    expect(descriptor.$schema).toMatch(/profiles\/2\.0\//);
    expect(byName.population?.schema?.fields).toEqual([
      { name: 'city', type: 'string' },
      { name: 'population', type: 'integer' },
    ]);
    expectCleanlyValid(report);
  });

  it('a repeated header name: the second field is renamed, the user told, and the descriptor validates', async () => {
    const dir = folder({ 'people.csv': 'name,age,name\nAda,36,Lovelace\nGrace,85,Hopper\n' });
    const { init, byName, report } = await initAndValidate(dir);
    expect(byName.people?.schema?.fields.map((field) => field.name)).toEqual([
      'name',
      'age',
      'name_2',
    ]);
    expect(init.err).toContain('"name" twice');
    expect(init.err).toContain('"name_2"');
    expectCleanlyValid(report);
  });

  it('a name keeps its letters: Über.csv is "uber"', async () => {
    const dir = folder({ 'Über.csv': 'a\n1\n', 'Straße.csv': 'a\n1\n' });
    const { byName, report } = await initAndValidate(dir);
    expect(Object.keys(byName).sort()).toEqual(['strasse', 'uber']);
    expectCleanlyValid(report);
  });

  it('row 5,000 breaks the first guess: the types are widened until the whole table validates', async () => {
    const rows = Array.from({ length: 6000 }, (_, index) =>
      index === 4998
        ? `${String(index)},x,1.5`
        : `${String(index)},${String(index)},${String(index)}`,
    );
    const dir = folder({ 'late.csv': `id,n,m\n${rows.join('\n')}\n` });
    const { byName, report } = await initAndValidate(dir);
    expect(byName.late?.schema?.fields).toEqual([
      { name: 'id', type: 'integer' },
      { name: 'n', type: 'string' },
      { name: 'm', type: 'number' },
    ]);
    expect(byName.late?.schema?.primaryKey).toEqual(['id']);
    expectCleanlyValid(report);
  });

  it('one bad file is left out and named; the others are still loosened', async () => {
    const late = `n\n${Array.from({ length: 150 }, (_, index) => String(index)).join('\n')}\noops\n`;
    const dir = folder({
      'broken.csv': Buffer.from([0x00, 0x01, 0x02, 0x03, 0x00]),
      'page.csv': '<!doctype html><html><body>hi</body></html>',
      'empty.csv': '',
      'late.csv': late,
    });
    const { init, byName, report } = await initAndValidate(dir);
    expect(Object.keys(byName)).toEqual(['late']);
    expect(byName.late?.schema?.fields).toEqual([{ name: 'n', type: 'string' }]);
    expect(init.err).toContain('left out broken.csv');
    expect(init.err).toContain('left out page.csv');
    expect(init.err).toContain('left out empty.csv');
    expectCleanlyValid(report);
  });

  it('a key that repeats far down is dropped; one that holds is kept', async () => {
    const rows = Array.from(
      { length: 3000 },
      (_, index) => `${String(index)},${String(index % 2999)}`,
    );
    const dir = folder({
      'keys.csv': `id,other_id\n${rows.join('\n')}\n`,
      'dup.csv': `code\n${rows.map((row) => row.split(',')[1]).join('\n')}\n`,
    });
    const { byName, report } = await initAndValidate(dir);
    expect(byName.keys?.schema?.primaryKey).toEqual(['id']);
    expect(byName.dup?.schema?.primaryKey).toBeUndefined();
    expectCleanlyValid(report);
  });

  it('finds the key of a table past a million rows, as validate checks keys at any size', async () => {
    const ids = Array.from({ length: 1_000_100 }, (_, index) => String(index)).join('\n');
    const dir = folder({ 'many.csv': `id\n${ids}\n` });
    const { byName, report } = await initAndValidate(dir);
    expect(byName.many?.schema?.primaryKey).toEqual(['id']);
    expectCleanlyValid(report);
  });

  it('names the resource, row and field of an error no descriptor can mend', async () => {
    const dir = folder({ 'extra.csv': 'a,b\n1,2\n3,4,5\n' });
    const init = await runCli(['init', dir]);
    expect(init.code).toBe(0);
    expect(init.err).toContain('warning: the data has errors no descriptor can mend');
    expect(init.err).toMatch(/resource "extra", row 3\b.*: /);
  });
});
