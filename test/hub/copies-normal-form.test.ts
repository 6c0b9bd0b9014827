/**
 * Which originals are their own CSV copy: the hub tells a CSV's format, encoding and dialect
 * as validation does (validator/reading.ts), by its bytes before its name, and whether the
 * copy would write any of its values otherwise.
 */
import { copyFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isNormalFormCsv } from '../../packages/hub/src/services/pipeline/derived-resources.js';
import { tempDir } from './helpers.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FIELDS = [
  { name: 'id', type: 'integer' },
  { name: 'name', type: 'string' },
];

/** Writes `bytes` as `file` and asks whether the table of it is its own CSV copy. */
async function normal(
  file: string,
  bytes: string | Buffer,
  resource: Record<string, unknown> = {},
): Promise<boolean> {
  writeFileSync(join(dir, file), bytes);
  return isNormalFormCsv({ name: 't', path: file, schema: { fields: FIELDS }, ...resource }, dir);
}

describe('an original that is its own CSV copy', () => {
  it('is UTF-8 without a byte order mark, comma-separated, whatever its name says', async () => {
    expect(await normal('plain.csv', 'id,name\n1,"one"\n2,two\n')).toBe(true);
    expect(await normal('plain.txt', 'id,name\n1,one\n')).toBe(true);
    expect(await normal('plain', 'id,name\n1,one\n', { format: 'csv' })).toBe(true);
    // A byte order mark, declared or not.
    expect(await normal('marked.csv', '\uFEFFid,name\n1,one\n')).toBe(false);
    expect(await normal('marked.txt', '\uFEFFid,name\n1,one\n', { encoding: 'utf-8' })).toBe(false);
    // Latin-1 with semicolons, declared as the pipeline declares them, or found.
    const latin = Buffer.from('id;name\n1;Zürich\n', 'latin1');
    expect(
      await normal('latin.csv', latin, { encoding: 'iso-8859-1', dialect: { delimiter: ';' } }),
    ).toBe(false);
    expect(await normal('latin2.csv', latin)).toBe(false);
    expect(await normal('comma-latin.csv', Buffer.from('id,name\n1,Zürich\n', 'latin1'))).toBe(
      false,
    );
    // Semicolons sniffed, as validation sniffs them when no dialect is declared.
    expect(await normal('semi.txt', 'id;name\n1;one\n2;two\n')).toBe(false);
    expect(await normal('tabs.tsv', 'id\tname\n1\tone\n')).toBe(false);
    // A workbook under a CSV's name is read as a workbook.
    copyFileSync(
      join(import.meta.dirname, '../fixtures/sheets/book.xlsx'),
      join(dir, 'book-named.csv'),
    );
    expect(
      await isNormalFormCsv({ name: 't', path: 'book-named.csv', schema: { fields: FIELDS } }, dir),
    ).toBe(false);
  });

  it('holds no value the copy writes in another form', async () => {
    const text = 'id,name\n1,x\n';
    const with_ = (field: Record<string, unknown>, more: Record<string, unknown> = {}) =>
      normal('typed.csv', text, {
        schema: {
          fields: [
            { name: 'id', type: 'integer' },
            { name: 'name', ...field },
          ],
          ...more,
        },
      });
    expect(await with_({ type: 'string' })).toBe(true);
    expect(await with_({ type: 'date' })).toBe(true);
    expect(await with_({ type: 'number', decimalChar: '.' })).toBe(true);
    expect(await with_({ type: 'datetime' })).toBe(false);
    expect(await with_({ type: 'time' })).toBe(false);
    expect(await with_({ type: 'date', format: '%d/%m/%Y' })).toBe(false);
    expect(await with_({ type: 'number', decimalChar: ',' })).toBe(false);
    expect(await with_({ type: 'integer', groupChar: ' ' })).toBe(false);
    expect(await with_({ type: 'boolean', trueValues: ['ja'] })).toBe(false);
    expect(await with_({ type: 'string' }, { missingValues: ['', 'n/a'] })).toBe(false);
    expect(await with_({ type: 'string', missingValues: ['-'] })).toBe(false);
    // No schema: the one validation infers, with date-times in it, or not.
    writeFileSync(join(dir, 'inferred.csv'), 'id,at\n1,2024-01-03T10:00:00\n');
    expect(await isNormalFormCsv({ name: 't', path: 'inferred.csv' }, dir)).toBe(false);
    writeFileSync(join(dir, 'inferred-plain.csv'), 'id,name\n1,x\n');
    expect(await isNormalFormCsv({ name: 't', path: 'inferred-plain.csv' }, dir)).toBe(true);
  });
});
