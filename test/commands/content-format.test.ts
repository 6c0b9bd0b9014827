import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folder } from '../helpers/fixtures.js';
import { writeXlsx } from '../helpers/workbook.js';
import { runCli } from '../helpers/cli.js';

const PDF = '%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\n';
const GZIP = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 1, 2, 3, 4]);

describe('a file is what its bytes say, then its name', () => {
  it('cat does not print a PDF, or a PDF or gzip named .csv, as a table: a plain message, exit 1', async () => {
    const dir = folder({ 'doc.pdf': PDF, 'fake.csv': PDF, 'packed.csv': GZIP });
    const doc = await runCli(['cat', join(dir, 'doc.pdf')]);
    expect(doc).toMatchObject({ code: 1, out: '' });
    expect(doc.err).toContain('"doc.pdf" is not a table (format "pdf")');
    const fake = await runCli(['cat', join(dir, 'fake.csv')]);
    expect(fake).toMatchObject({ code: 1, out: '' });
    expect(fake.err).toContain('the data is a PDF document, not delimited text');
    const packed = await runCli(['cat', join(dir, 'packed.csv')]);
    expect(packed.err).toContain('the data is a gzip-compressed file');
    for (const run of [doc, fake, packed]) expect(run.err).not.toMatch(/bug|\bat .*\.ts:/);
  });

  it('validate and info say the same of a PDF named .csv', async () => {
    const dir = folder({ 'fake.csv': PDF });
    const validated = await runCli(['validate', join(dir, 'fake.csv')]);
    expect(validated.code).toBe(1);
    expect(validated.out).toContain('format-error');
    expect(validated.out).toContain('the data is a PDF document, not delimited text');
    const shown = await runCli(['info', join(dir, 'fake.csv')]);
    expect(shown.code).toBe(1);
    expect(shown.err).toContain('the data is a PDF document, not delimited text');
  });

  it('an Excel workbook saved under a .csv name is read as the workbook it is', async () => {
    const dir = folder({});
    const text = (value: string): string => `<c t="inlineStr"><is><t>${value}</t></is></c>`;
    await writeXlsx(
      join(dir, 'export.csv'),
      `<row>${text('id')}${text('name')}</row><row><c><v>1</v></c>${text('Ada')}</row>`,
    );
    const validated = await runCli(['--json', 'validate', join(dir, 'export.csv')]);
    const report = JSON.parse(validated.out) as { valid: boolean; tasks: { labels: string[] }[] };
    expect(report.valid).toBe(true);
    expect(report.tasks[0]?.labels).toEqual(['id', 'name']);
    const cat = await runCli(['cat', join(dir, 'export.csv')]);
    expect(cat.out).toBe('id,name\n1,Ada\n');
    const init = await runCli(['--json', 'init', dir]);
    expect(JSON.parse(init.out)).toMatchObject({
      resources: [{ name: 'export', path: 'export.csv', format: 'xlsx' }],
    });
  });
});
