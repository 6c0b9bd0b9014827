import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeOdsBomb, writeXlsxTextBomb, xlsChainBomb, yamlAliasBomb } from '../helpers/bombs.js';
import { check, folder } from '../helpers/fixtures.js';
import { writeOds, writeXlsx } from '../helpers/workbook.js';

/** The CLI in this process, in this thread (no worker), as a terminal-less user runs it. */
function data(args: string[]): Promise<{ code: number; out: string; err: string }> {
  return runCli(args);
}

function notes(report: Awaited<ReturnType<typeof check>>): string[] {
  return [...report.errors, ...report.tasks.flatMap((task) => task.errors)].map(
    (error) => `${error.type}: ${error.note}`,
  );
}

describe('files that spell far more than they hold', () => {
  it('an .ods of repeated rows and columns is refused before a row is made', async () => {
    const dir = folder({});
    await writeOdsBomb(join(dir, 'bomb.ods'));
    expect(notes(await check(join(dir, 'bomb.ods'), { limitErrors: 0 }))).toEqual([
      'format-error: the sheet holds more than 100,000,000 cells by row 1 (repeated rows and cells counted), the most read of a sheet',
    ]);
    const { code, out } = await data(['validate', join(dir, 'bomb.ods'), '--limit-errors', '0']);
    expect(code).toBe(1);
    expect(out).toContain('the sheet holds more than 100,000,000 cells');
  });

  it('counts a text at every place a repeat puts it, and blank rows between rows', async () => {
    const dir = folder({});
    const text = 'x'.repeat(1000);
    await writeOds(
      join(dir, 'text.ods'),
      `<table:table-row table:number-rows-repeated="10000"><table:table-cell table:number-columns-repeated="1000"><text:p>${text}</text:p></table:table-cell></table:table-row>`,
    );
    expect(notes(await check(join(dir, 'text.ods')))).toEqual([
      'format-error: the sheet holds more than 4,294,967,296 characters by row 1 (repeated rows and cells counted), the most read of a sheet',
    ]);
    await writeXlsx(
      join(dir, 'gap.xlsx'),
      '<row r="1"><c r="A1"><v>1</v></c><c r="XFD1"><v>1</v></c></row><row r="1000000"><c r="A1000000"><v>1</v></c></row>',
    );
    expect(notes(await check(join(dir, 'gap.xlsx')))).toEqual([
      'format-error: the sheet holds more than 100,000,000 cells by row 1000000 (repeated rows and cells counted), the most read of a sheet',
    ]);
  });

  it('a workbook listing more sheets than a workbook has is refused as it lists them', async () => {
    // The last sheet is asked for: every name before it is read.
    const dir = folder({
      'datapackage.json': {
        resources: [{ name: 'last', path: 'sheets.ods', dialect: { sheetNumber: 100_002 } }],
      },
    });
    const empty = '<table:table table:name="s"></table:table>';
    await writeOds(join(dir, 'sheets.ods'), `</table:table>${empty.repeat(100_001)}<table:table>`);
    expect(notes(await check(dir))).toEqual([
      'format-error: the workbook lists more than 100,000 sheets, more than a workbook has',
    ]);
  });

  it('a repeated row within the limits is read as the rows it stands for', async () => {
    const dir = folder({});
    await writeOds(
      join(dir, 'few.ods'),
      '<table:table-row><table:table-cell office:value-type="string"><text:p>n</text:p></table:table-cell></table:table-row><table:table-row table:number-rows-repeated="3"><table:table-cell office:value-type="float" office:value="7"/></table:table-row>',
    );
    const report = await check(join(dir, 'few.ods'));
    expect(notes(report)).toEqual([]);
    expect(report.tasks[0]?.stats.rows).toBe(3);
  });

  for (const where of ['shared', 'inline'] as const) {
    it(`an .xlsx whose ${where} text is one run of 600 million blanks is a format error`, async () => {
      const dir = folder({});
      await writeXlsxTextBomb(join(dir, 'blanks.xlsx'), 600_000_000, where);
      const { code, out, err } = await data(['validate', join(dir, 'blanks.xlsx')]);
      expect({ code, err }).toEqual({ code: 1, err: '' });
      expect(out).toMatch(
        /\tformat-error\t.*a cell holds more than 16,777,216 characters, more than a workbook cell can\n/,
      );
    });
  }

  it('an .xls whose sector chain names itself is a format error, before SheetJS follows it', async () => {
    const dir = folder({ 'loop.xls': xlsChainBomb() });
    expect(notes(await check(join(dir, 'loop.xls')))).toEqual([
      'format-error: the .xls workbook is damaged: its sector chains loop or overlap',
    ]);
    const { code, out } = await data(['validate', join(dir, 'loop.xls')]);
    expect(code).toBe(1);
    expect(out).toContain('its sector chains loop or overlap');
  });

  it('YAML nested past 256 brackets is refused before the library holds a token a level', async () => {
    const depth = 100_000;
    const dir = folder({
      'datapackage.yaml': `name: deep\nresources:\n  - name: a\n    data: ${'['.repeat(depth)}${']'.repeat(depth)}\n`,
      'quoted.yaml': `name: quoted\ntitle: "it's [ a { quoted"\ndescription: It's [[[ plain, # not a [ comment\nresources: [{name: a, data: [[1]]}]\n`,
    });
    expect(notes(await check(join(dir, 'datapackage.yaml')))).toEqual([
      'package-error: cannot parse the descriptor as YAML: its brackets nest more than 256 levels deep, deeper than a descriptor does',
    ]);
    expect(notes(await check(join(dir, 'quoted.yaml')))).toEqual([]);
  });

  it('a YAML alias bomb is a descriptor that cannot be read (exit 1), not a bug', async () => {
    const dir = folder({ 'datapackage.yaml': yamlAliasBomb() });
    expect(notes(await check(join(dir, 'datapackage.yaml')))).toEqual([
      'package-error: cannot parse the descriptor as YAML: it names aliases more than 100 times (an alias bomb), more than a descriptor does',
    ]);
    const { code, out, err } = await data(['validate', dir]);
    expect(code).toBe(1);
    expect(err).not.toContain('bug');
    expect(out).toContain('an alias bomb');
  });
});

describe('other commands that read a bomb', () => {
  it('diff, cat and info refuse each with its reason, init leaves it out, never as a bug', async () => {
    const dir = folder({ 'loop.xls': xlsChainBomb(), 'datapackage.yaml': yamlAliasBomb() });
    await writeOdsBomb(join(dir, 'bomb.ods'));
    const sheets = folder({ 'a.csv': 'x\n1\n' });
    await writeOdsBomb(join(sheets, 'bomb.ods'));
    for (const [args, reason] of [
      [['diff', join(dir, 'bomb.ods'), join(dir, 'bomb.ods')], 'more than 100,000,000 cells'],
      [['diff', join(dir, 'loop.xls'), join(dir, 'loop.xls')], 'sector chains loop'],
      [['info', join(dir, 'datapackage.yaml')], 'an alias bomb'],
      [['cat', join(dir, 'bomb.ods')], 'more than 100,000,000 cells'],
      [['cat', join(dir, 'loop.xls')], 'sector chains loop'],
      [['info', join(dir, 'bomb.ods')], 'more than 100,000,000 cells'],
    ]) {
      const { code, out, err } = await data(args as string[]);
      expect({ args, code: code === 1 || code === 2 }).toEqual({ args, code: true });
      expect(out + err).toContain(reason);
      expect(err).not.toContain('bug');
    }
    // data init leaves out, and names, a file no table can be read from.
    const init = await data(['init', sheets]);
    expect(init.code).toBe(0);
    expect(init.err).toContain('left out bomb.ods');
    expect(init.err).not.toContain('bug');
  });
});

describe('descriptors read from a URL', () => {
  let server: Server;
  let base: string;
  const LARGE = 17 * 1024 * 1024;

  beforeAll(async () => {
    server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      if (request.url?.endsWith('/small/datapackage.json')) {
        response.end(JSON.stringify({ name: 'small', resources: [{ name: 'a', data: [] }] }));
        return;
      }
      // A descriptor of blanks past the cap, written as the reader takes it.
      const block = Buffer.alloc(64 * 1024, 0x20);
      let sent = 0;
      const more = (): void => {
        while (sent < LARGE) {
          sent += block.length;
          if (!response.write(block)) {
            response.once('drain', more);
            return;
          }
        }
        response.end('{}');
      };
      response.write('{"resources": [] ');
      more();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (typeof address !== 'object' || address === null) throw new Error('no port');
    base = `http://127.0.0.1:${String(address.port)}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  for (const name of ['datapackage.json', 'datapackage.yaml']) {
    it(`a ${name} past 16 MB is refused as it arrives (exit 3), naming the cap`, async () => {
      const { code, err } = await data(['validate', `${base}/large/${name}`]);
      expect(code).toBe(3);
      expect(err).toContain(`${base}/large/${name} is larger than 16 MB`);
    });
  }

  it('info, get, cat and diff of a URL refuse a descriptor past 16 MB (exit 3), naming the cap', async () => {
    const dataset = `${base}/large/o/d`;
    for (const args of [
      ['info', dataset],
      ['get', dataset, '--out', join(folder({}), 'd')],
      ['cat', dataset],
      ['diff', dataset, `${base}/large/o/e`],
    ]) {
      const { code, err } = await data(args);
      expect({ args, code }).toEqual({ args, code: 3 });
      expect(err).toMatch(/is larger than 16 MB, the most read of a descriptor/);
    }
  });

  it('a descriptor under the cap is read as before', async () => {
    const { code } = await data(['validate', `${base}/small/datapackage.json`]);
    expect(code).toBe(0);
  });
});
