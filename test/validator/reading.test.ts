import { describe, expect, it } from 'vitest';
import { contentFormat } from '../../packages/core/src/files/content-format.js';
import { headerIndex, readingOf, textReading } from '../../packages/core/src/validator/reading.js';
import { folder } from '../helpers/fixtures.js';

describe('the one reading of a file', () => {
  it('tells a file by its first bytes', () => {
    const bytes = (text: string): Buffer => Buffer.from(text, 'latin1');
    expect(contentFormat(bytes('PK\u0003\u0004....[Content_Types].xml'))).toBe('xlsx');
    expect(
      contentFormat(
        bytes('PK\u0003\u0004....mimetypeapplication/vnd.oasis.opendocument.spreadsheet'),
      ),
    ).toBe('ods');
    expect(contentFormat(bytes('PK\u0003\u0004....notes.txt'))).toBe('zip');
    expect(contentFormat(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0]))).toBe(
      'xls',
    );
    expect(contentFormat(bytes('PAR1\u0015\u0004'))).toBe('parquet');
    expect(contentFormat(bytes('%PDF-1.7\n'))).toBe('pdf');
    expect(contentFormat(Buffer.from([0x1f, 0x8b, 8, 0]))).toBe('gzip');
    expect(contentFormat(Buffer.from('\uFEFF  <!DOCTYPE html><html>'))).toBe('html');
    expect(contentFormat(bytes('a,b\n1,\u0000\n'))).toBe('binary');
    expect(contentFormat(Buffer.from([0xff, 0xfe, 0x61, 0x00]))).toBeUndefined();
    expect(contentFormat(bytes('a,b\n1,2\n'))).toBeUndefined();
    expect(contentFormat(Buffer.alloc(0))).toBeUndefined();
  });

  it("finds a sheet's header below its title rows, and only there", () => {
    expect(headerIndex([['Title'], [], ['a', 'b', 'c'], [1, 2, 3], [4, 5, 6]])).toBe(2);
    expect(
      headerIndex([
        ['a', 'b', 'c'],
        [1, 2, 3],
      ]),
    ).toBe(0);
    // A narrower header above wider rows is still the header (their cells are extra).
    expect(
      headerIndex([
        ['a', 'b'],
        [1, 2, 3],
        [4, 5, 6],
      ]),
    ).toBe(0);
    // One column: nothing to tell a title from a header by.
    expect(headerIndex([['Title'], ['a'], [1]])).toBe(0);
  });

  it('reads numbers written with decimal commas and grouped digits, and leaves phone numbers text', async () => {
    const dir = folder({
      'n.csv':
        'price;total;phone;day\n138,72;1.204,50;030 1234567;28.02.2024\n7;12;040 765432;01.03.2024\n',
    });
    const reading = await readingOf({ name: 'n', path: 'n.csv' }, { dir });
    expect(reading.schema?.fields).toEqual([
      { name: 'price', type: 'number', decimalChar: ',' },
      { name: 'total', type: 'number', decimalChar: ',', groupChar: '.' },
      { name: 'phone', type: 'string' },
      { name: 'day', type: 'date', format: '%d.%m.%Y' },
    ]);
    expect(reading.properties).toEqual({ dialect: { delimiter: ';' } });
  });

  it("reads a text table's first bytes by the same rules as its rows", async () => {
    expect(await textReading(Buffer.from("'a';'b'\n'x';'y'\n"), 'csv')).toEqual({
      encoding: 'utf-8',
      delimiter: ';',
      quoteChar: "'",
    });
    expect(
      await textReading(Buffer.from('stadt;preis\nMünchen;1\n', 'latin1'), 'csv'),
    ).toMatchObject({
      encoding: 'windows-1252',
      delimiter: ';',
    });
    expect(await textReading(Buffer.from('a\tb\n'), 'tsv')).toMatchObject({ delimiter: '\t' });
  });
});
