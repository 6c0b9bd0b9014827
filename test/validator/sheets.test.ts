import { createServer, type Server } from 'node:http';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readRows } from '../../packages/core/src/validator/rows.js';
import { dateKindOfFormat, serialDate } from '../../packages/core/src/validator/sheets/cells.js';
import type { ResourceDescriptor } from '../../packages/core/src/validator/descriptor/types.js';
import { check, folder, summary } from '../helpers/fixtures.js';
import { writeOds, writeXlsx } from '../helpers/workbook.js';

/**
 * One workbook saved by LibreOffice in each format (test/fixtures/sheets/book.fods is the
 * source): sheet "cities" with dates, date-times, times, booleans and a formula; sheet
 * "problems" with a merged header, a word in a number column, an empty row and a repeated
 * key; sheet "offset" whose table starts on row 3, with text over two lines. To make them
 * again: `soffice --headless --convert-to xlsx book.fods` (and xls, ods), from Debian's
 * libreoffice-calc-nogui.
 */
const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'sheets');
const FORMATS = ['xlsx', 'xls', 'ods'] as const;

const CITY_FIELDS = [
  { name: 'id', type: 'integer' },
  { name: 'name', type: 'string' },
  { name: 'founded', type: 'date' },
  { name: 'area', type: 'number' },
  { name: 'capital', type: 'boolean' },
  { name: 'updated', type: 'datetime' },
  { name: 'opens', type: 'time' },
  { name: 'double', type: 'integer' },
];

/** A package whose resources are the fixture workbook of `format` (as `book`) and more files. */
function workbookPackage(
  format: string,
  resources: Record<string, unknown>[],
  files: Record<string, string> = {},
): string {
  const dir = folder({ ...files, 'datapackage.json': { name: 'sheets', resources } });
  copyFileSync(join(FIXTURES, `book.${format}`), join(dir, `book.${format}`));
  return dir;
}

async function rowsOf(resource: ResourceDescriptor, dir: string): Promise<unknown[][]> {
  const rows: unknown[][] = [];
  await readRows(
    resource,
    { dir },
    { fetch: globalThis.fetch, typed: false },
    { labels: () => undefined, row: (values) => rows.push(values), open: true },
  );
  return rows;
}

describe.each(FORMATS)('a .%s workbook', (format) => {
  const path = `book.${format}`;

  it('is validated as a table on its own, with types inferred from its cells', async () => {
    const report = await check(join(FIXTURES, path));
    expect(report.valid).toBe(true);
    expect(report.tasks[0]?.stats).toMatchObject({ fields: 8, rows: 3 });
  });

  it('reads dates, times, numbers, booleans and formula results as the sheet shows them', async () => {
    const dir = workbookPackage(format, []);
    const rows = await rowsOf({ name: 'book', path }, dir);
    expect(rows.map((row) => row.map(String))).toEqual([
      ['1', 'London', '1801-01-01', '1572.5', '1', '2024-05-01T10:30:00', '09:00:00', '2'],
      ['2', 'Paris', '1999-12-31', '105.4', '1', '2024-05-02T23:59:59', '18:30:00', '4'],
      // OpenDocument keeps a date-time at midnight as a date.
      [
        '3',
        'Nuuk',
        '1728-08-29',
        '0.25',
        '0',
        format === 'ods' ? '2024-05-03' : '2024-05-03T00:00:00',
        '07:15:30',
        '6',
      ],
    ]);
  });

  it('passes a declared schema with every type, and a primary key', async () => {
    const dir = workbookPackage(format, [
      { name: 'cities', path, schema: { fields: CITY_FIELDS, primaryKey: ['id'] } },
    ]);
    const report = await check(dir);
    expect(summary(report)).toEqual([]);
    expect(report.tasks[0]?.stats.rows).toBe(3);
  });

  it('reports a word in an integer column, and cells whose type the schema refuses', async () => {
    const fields = CITY_FIELDS.map((field) =>
      field.name === 'name'
        ? { name: 'name', type: 'integer' }
        : field.name === 'founded'
          ? { name: 'founded', type: 'time' }
          : field,
    );
    const report = await check(
      workbookPackage(format, [{ name: 'cities', path, schema: { fields } }]),
    );
    expect(summary(report)).toEqual([
      'type-error@2@2',
      'type-error@2@3',
      'type-error@3@2',
      'type-error@3@3',
      'type-error@4@2',
      'type-error@4@3',
    ]);
    const errors = report.tasks[0]?.errors ?? [];
    expect(errors[0]?.cell).toBe('London');
    expect(errors[1]?.cell).toBe('1801-01-01');
  });

  it('refuses a date-time with a time of day in a date column', async () => {
    const fields = CITY_FIELDS.map((field) =>
      field.name === 'updated' ? { name: 'updated', type: 'date' } : field,
    );
    const report = await check(
      workbookPackage(format, [{ name: 'cities', path, schema: { fields } }]),
    );
    // The third row's date-time is midnight, which is a date.
    expect(summary(report)).toEqual(['type-error@2@6', 'type-error@3@6']);
  });

  it('chooses the sheet by name or number, and numbers rows as the sheet does', async () => {
    const problems = {
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'name', type: 'string' },
        ],
        primaryKey: ['id'],
      },
    };
    const expected = [
      'extra-cell@2@3',
      'type-error@3@1',
      'extra-cell@3@3',
      // A key the type refused is no key: null, as in a CSV.
      'primary-key@3',
      'blank-row@4',
      'primary-key@4',
      'extra-cell@5@3',
      'primary-key@5',
    ];
    for (const dialect of [{ sheetName: 'problems' }, { sheetNumber: 2 }]) {
      const dir = workbookPackage(format, [{ name: 'problems', path, dialect, ...problems }]);
      expect(summary(await check(dir))).toEqual(expected);
    }
  });

  it('names the sheets there are when the one asked for is not there', async () => {
    const dir = workbookPackage(format, [
      { name: 'a', path, dialect: { sheetName: 'Cities' } },
      { name: 'b', path, dialect: { sheetNumber: 4 } },
    ]);
    const report = await check(dir);
    const notes = report.tasks.map((task) => task.errors.map((error) => [error.type, error.note]));
    const sheets = 'its sheets are 1. "cities", 2. "problems", 3. "offset"';
    expect(notes).toEqual([
      [['format-error', `the workbook has no sheet "Cities"; ${sheets}`]],
      [['format-error', `the workbook has no sheet 4; ${sheets}`]],
    ]);
  });

  it('starts the table at its first row with content and keeps text as written', async () => {
    const dir = workbookPackage(format, []);
    const resource = { name: 'offset', path, dialect: { sheetName: 'offset' } };
    expect(await rowsOf(resource, dir)).toEqual([
      ['a', 1],
      ['b  & c\nsecond line', 2],
      ['Zürich', null],
    ]);
    const report = await check(
      workbookPackage(format, [
        {
          ...resource,
          schema: {
            fields: [
              { name: 'code', type: 'string' },
              { name: 'value', type: 'integer', constraints: { required: true } },
            ],
          },
        },
      ]),
    );
    // Rows are the sheet's: the header is row 3, so "Zürich" is row 6.
    expect(summary(report)).toEqual(['constraint-error@6@2']);
  });

  it('takes header and comment rows from the dialect as for CSV', async () => {
    const dir = workbookPackage(format, [
      {
        name: 'cities',
        path,
        dialect: { commentRows: [3] },
        schema: { fields: CITY_FIELDS, primaryKey: ['id'] },
      },
    ]);
    const report = await check(dir);
    expect(summary(report)).toEqual([]);
    expect(report.tasks[0]?.stats.rows).toBe(2);
  });

  it('checks foreign keys from CSV into a sheet and from a sheet into CSV, by typed value', async () => {
    const dir = workbookPackage(
      format,
      [
        {
          name: 'cities',
          path,
          schema: {
            fields: CITY_FIELDS,
            primaryKey: ['id'],
            foreignKeys: [{ fields: ['name'], reference: { resource: 'names', fields: ['name'] } }],
          },
        },
        { name: 'names', path: 'names.csv' },
        {
          name: 'visits',
          path: 'visits.csv',
          schema: {
            fields: [{ name: 'city', type: 'integer' }],
            foreignKeys: [{ fields: ['city'], reference: { resource: 'cities', fields: ['id'] } }],
          },
        },
      ],
      { 'names.csv': 'name\nLondon\nParis\n', 'visits.csv': 'city\n1\n3\n9\n' },
    );
    const report = await check(dir);
    expect(report.tasks.map((task) => summary({ ...report, errors: [], tasks: [task] }))).toEqual([
      ['foreign-key@4'],
      [],
      ['foreign-key@4'],
    ]);
  });

  it('checks the declared size and hash of the workbook file', async () => {
    const bytes = readFileSync(join(FIXTURES, path)).length;
    const dir = workbookPackage(format, [
      { name: 'cities', path, bytes: bytes + 1, hash: 'md5:00000000000000000000000000000000' },
    ]);
    expect(summary(await check(dir))).toEqual(['hash-count', 'byte-count']);
  });
});

describe('what is not a workbook', () => {
  it('reports a CSV, an HTML page or a plain zip named .xlsx as what it is', async () => {
    const dir = folder({
      'csv.xlsx': 'id,name\n1,a\n',
      'page.xls': '<!DOCTYPE html><html><body>Sign in</body></html>',
      'datapackage.json': {
        name: 'not-workbooks',
        resources: [
          { name: 'csv', path: 'csv.xlsx' },
          { name: 'page', path: 'page.xls' },
          { name: 'archive', path: 'archive.ods' },
        ],
      },
    });
    // A zip with no workbook in it: the empty archive's end record alone.
    writeFileSync(
      join(dir, 'archive.ods'),
      Buffer.from([0x50, 0x4b, 0x03, 0x04, ...new Array<number>(26).fill(0)]),
    );
    const report = await check(dir);
    expect(
      report.tasks.map((task) => task.errors.map((error) => `${error.type}: ${error.note}`)),
    ).toEqual([
      ['format-error: the data is not a workbook: not an .xlsx, .xls or .ods file'],
      ['format-error: the data is an HTML page, not a workbook'],
      [expect.stringMatching(/^format-error: the workbook is damaged: /)],
    ]);
  });

  it('reports a truncated workbook as damaged, in every format', async () => {
    for (const format of FORMATS) {
      const whole = readFileSync(join(FIXTURES, `book.${format}`));
      const dir = folder({ [`cut.${format}`]: whole.subarray(0, Math.floor(whole.length * 0.6)) });
      const report = await check(join(dir, `cut.${format}`));
      expect(report.valid).toBe(false);
      expect(report.tasks[0]?.errors.map((error) => error.type)).toEqual(['format-error']);
    }
  });

  it('refuses --sheet-style choices where they cannot apply: a list of paths', async () => {
    const dir = folder({
      'datapackage.json': { name: 'p', resources: [{ name: 'a', path: ['a.xlsx', 'b.xlsx'] }] },
    });
    const report = await check(dir);
    expect(report.tasks[0]?.errors.map((error) => error.note)).toEqual([
      'a workbook is one file: a list of paths (multipart) is for delimited text',
    ]);
  });
});

describe('a workbook at a URL', () => {
  let server: Server;
  let base = '';
  beforeAll(async () => {
    server = createServer((request, response) => {
      const name = (request.url ?? '').slice(1);
      if (!/^book\.(xlsx|xls|ods)$/.test(name)) {
        response.writeHead(404).end();
        return;
      }
      response.end(readFileSync(join(FIXTURES, name)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    base = `http://127.0.0.1:${String(typeof address === 'object' && address ? address.port : 0)}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('is fetched once and read like a local one, with the sheet chosen', async () => {
    for (const format of FORMATS) {
      const report = await check(`${base}/book.${format}`, { sheet: 'problems' });
      expect(summary(report)).toEqual([
        'extra-cell@2@3',
        'extra-cell@3@3',
        'blank-row@4',
        'extra-cell@5@3',
      ]);
    }
  });
});

describe('number formats', () => {
  it('tell dates, times and date-times from numbers, as Excel shows them', () => {
    const kinds = Object.fromEntries(
      [
        'yyyy-mm-dd',
        'd/m/yyyy h:mm',
        '[$-409]mmmm d, yyyy;@',
        'hh:mm',
        'mm:ss',
        '[h]:mm:ss',
        'h:mm AM/PM',
        'General',
        '0.00E+00',
        '#,##0.00 "m"',
        '"Day" 0',
        '[Red]0.00',
        '\\d 0',
      ].map((code) => [code, dateKindOfFormat(code) ?? 'number']),
    );
    expect(kinds).toEqual({
      'yyyy-mm-dd': 'date',
      'd/m/yyyy h:mm': 'datetime',
      '[$-409]mmmm d, yyyy;@': 'date',
      'hh:mm': 'time',
      'mm:ss': 'time',
      '[h]:mm:ss': 'time',
      'h:mm AM/PM': 'time',
      General: 'number',
      '0.00E+00': 'number',
      '#,##0.00 "m"': 'number',
      '"Day" 0': 'number',
      '[Red]0.00': 'number',
      '\\d 0': 'number',
    });
  });

  it('turn serial numbers into the dates they show, in both date systems', () => {
    expect(String(serialDate(45413.4375, 'datetime', false))).toBe('2024-05-01T10:30:00');
    expect(String(serialDate(-36157, 'date', false))).toBe('1801-01-01');
    expect(String(serialDate(0, 'date', true))).toBe('1904-01-01');
    expect(String(serialDate(45414.99998842593, 'datetime', false))).toBe('2024-05-02T23:59:59');
    expect(String(serialDate(1.75, 'time', false))).toBe('18:00:00');
  });
});

describe('workbooks no spreadsheet program writes', () => {
  const LIMITS = { maxRowChars: 1_000_000, maxColumns: 100 };
  const inline = (text: string): string => `<c t="inlineStr"><is><t>${text}</t></is></c>`;

  it('reads cells and rows without references, and elements with a namespace prefix', async () => {
    const dir = folder({});
    await writeXlsx(
      join(dir, 'bare.xlsx'),
      `<row>${inline('id')}${inline('name')}</row><row><c><v>1</v></c><c t="s"><v>0</v></c></row>`,
      '<si><t>a</t></si>',
    );
    await writeXlsx(
      join(dir, 'prefixed.xlsx'),
      `<x:row r="1"><x:c r="A1" t="s"><x:v>0</x:v></x:c></x:row><x:row r="2"><x:c r="A2"><x:v>7</x:v></x:c></x:row>`,
      '<x:si><x:r><x:t>i</x:t></x:r><x:r><x:t>d</x:t></x:r></x:si>',
      'x',
    );
    expect(await rowsOf({ name: 'bare', path: 'bare.xlsx' }, dir)).toEqual([[1, 'a']]);
    const prefixed: unknown[][] = [];
    await readRows(
      { name: 'prefixed', path: 'prefixed.xlsx' },
      { dir },
      { fetch: globalThis.fetch, typed: false },
      { labels: (labels) => prefixed.push(labels), row: (row) => prefixed.push(row), open: true },
    );
    expect(prefixed).toEqual([['id'], [7]]);
  });

  it('refuses shared text past the limit, a cell past its size, and rows and columns past a sheet', async () => {
    const dir = folder({});
    const big = 'x'.repeat(600);
    await writeXlsx(
      join(dir, 'shared.xlsx'),
      '<row r="1"><c t="s"><v>0</v></c></row>',
      `<si><t>${big}</t></si><si><t>${big}</t></si>`,
    );
    await writeXlsx(
      join(dir, 'cell.xlsx'),
      `<row r="1">${inline('y'.repeat(16 * 1024 * 1024 + 1))}</row>`,
    );
    await writeXlsx(
      join(dir, 'far.xlsx'),
      `<row r="1">${inline('a')}</row><row r="999999999">${inline('b')}</row>`,
    );
    await writeXlsx(join(dir, 'wide.xlsx'), `<row r="1"><c r="ZZZZ1"><v>1</v></c></row>`);
    await writeOds(
      join(dir, 'spaces.ods'),
      '<table:table-row><table:table-cell office:value-type="string"><text:p>a<text:s text:c="2000000000"/></text:p></table:table-cell></table:table-row>',
    );
    const notes = async (file: string): Promise<string[]> =>
      (
        (await check(join(dir, file), { rowLimits: { ...LIMITS, maxSharedTextBytes: 1000 } }))
          .tasks[0]?.errors ?? []
      ).map((error) => `${error.type}: ${error.note}`);
    expect(await notes('shared.xlsx')).toEqual([
      "source-error: the workbook's shared text is larger than 1,000 bytes, the most read here",
    ]);
    expect(await notes('cell.xlsx')).toEqual([
      'format-error: a cell holds more than 16,777,216 characters, more than a workbook cell can',
    ]);
    expect(await notes('far.xlsx')).toEqual([
      'format-error: the sheet has a row numbered 999999999, past the 16777216 rows a sheet can have',
    ]);
    expect(await notes('wide.xlsx')).toEqual([
      'format-error: row 1 has more than 16384 columns, more than a sheet can have',
    ]);
    expect(await notes('spaces.ods')).toEqual([
      'format-error: a cell holds more than 16,777,216 characters, more than a workbook cell can',
    ]);
  });

  it('holds the hub row limits on sheets as on CSV', async () => {
    const dir = folder({});
    await writeXlsx(join(dir, 'long.xlsx'), `<row r="1">${inline('z'.repeat(2000))}</row>`);
    const report = await check(join(dir, 'long.xlsx'), {
      rowLimits: { maxRowChars: 1000, maxColumns: 10 },
    });
    expect(report.tasks[0]?.errors.map((error) => error.note)).toEqual([
      'row 1 is longer than 1,000 characters, the most this hub reads in one row',
    ]);
  });
});
