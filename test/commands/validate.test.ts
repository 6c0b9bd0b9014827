import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tablePackage } from '../helpers/fixtures.js';
import { runCli } from '../helpers/cli.js';

const EXAMPLES = join(import.meta.dirname, '../../examples');

describe('data validate', () => {
  it('exits 0 on a valid package and ends with one verdict line', async () => {
    const { code, out, err } = await runCli(['validate', join(EXAMPLES, 'cities')]);
    expect(code).toBe(0);
    expect(out).toMatch(/^✔ valid: 2 resources, 12 rows checked \(\d+\.\d\d s\)\n$/);
    expect(err).toBe('');
  });

  it('exits 1 on invalid data and prints one tab-separated line per error when not a terminal', async () => {
    const { code, out } = await runCli(['validate', join(EXAMPLES, 'invalid-data')]);
    expect(code).toBe(1);
    const lines = out.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/^✖ invalid: 22 errors in 2 of 3 resources/);
    expect(lines[0]?.split('\t')).toEqual([
      'staff',
      '3',
      'active',
      'type-error',
      'Type error in the cell "yes" in row "3" and field "active" at position "6": type is "boolean/default"',
    ]);
    expect(out).not.toContain('\u001b[');
  });

  it('groups errors by resource on a terminal, shows the row and colours the offending cell', async () => {
    const { out } = await runCli(['validate', join(EXAMPLES, 'invalid-data')], { tty: true });
    expect(out).toContain('\u001b[1mstaff\u001b[22m');
    expect(out).toContain('row 3, field "active" (6)');
    expect(out).toContain('\u001b[31m\u001b[1m[yes]\u001b[22m\u001b[39m');
  });

  it('drops colours on a terminal under NO_COLOR and --no-color', async () => {
    for (const [args, env] of [
      [[], { NO_COLOR: '1' }],
      [['--no-color'], {}],
    ] as const) {
      const { out } = await runCli([...args, 'validate', join(EXAMPLES, 'invalid-data')], {
        tty: true,
        env,
      });
      expect(out).not.toContain('\u001b[');
      expect(out).toContain('│ 2, alan@example.org, Alan Turing, 10, 79000.50, [yes]');
    }
  });

  it('prints exactly one JSON document with --json, valid or not', async () => {
    for (const [example, expected] of [
      ['cities', 0],
      ['invalid-descriptor', 1],
    ] as const) {
      const { code, out, err } = await runCli(['--json', 'validate', join(EXAMPLES, example)], {
        tty: true,
      });
      expect(code).toBe(expected);
      const report = JSON.parse(out) as { valid: boolean };
      expect(report.valid).toBe(expected === 0);
      expect(err).toBe('');
    }
    const { out } = await runCli(['validate', join(EXAMPLES, 'cities'), '--format', 'json']);
    expect(JSON.parse(out)).toMatchObject({ valid: true });
  });

  it('prints GitHub annotations with --format github', async () => {
    const dir = tablePackage('id\nx\n', { schema: { fields: [{ name: 'id', type: 'integer' }] } });
    const { code, out, err } = await runCli(['validate', dir, '--format', 'github']);
    expect(code).toBe(1);
    expect(out).toBe(
      `::error file=${join(dir, 'data.csv')},line=2,col=1,title=Type Error::Type error in the cell "x" in row "2" and field "id" at position "1": type is "integer/default"\n`,
    );
    expect(err).toMatch(/✖ invalid: 1 error in 1 of 1 resource/);
  });

  it('honours --limit-errors, --pick-errors and --skip-errors', async () => {
    const dir = tablePackage(`id\n${'x\n'.repeat(20)}`, {
      schema: { fields: [{ name: 'id', type: 'integer' }] },
    });
    const limited = await runCli(['--json', 'validate', dir, '--limit-errors', '3']);
    expect(JSON.parse(limited.out)).toMatchObject({
      tasks: [{ warnings: ['reached error limit: 3'] }],
    });
    const skipped = await runCli(['validate', dir, '--skip-errors', 'type-error']);
    expect(skipped.code).toBe(0);
    const picked = await runCli(['--json', 'validate', dir, '--pick-errors', '#header']);
    expect(JSON.parse(picked.out)).toMatchObject({ valid: true });
  });

  it.each([
    [['validate', '--limit-errors', 'many']],
    [['validate', '--format', 'xml']],
    [['validate', '--bogus']],
    [['bogus']],
    [['validate', '--pick-errors', 'no-such-error']],
  ])('exits 2 on a usage error: %j', async (args) => {
    const { code, err } = await runCli([...args]);
    expect(code).toBe(2);
    expect(err).toMatch(/error/);
  });

  it('ends a long list with a summary by type and field, and says where it stopped and how to go on', async () => {
    const rows = Array.from({ length: 30 }, (_, index) => `${String(index)},x${String(index)},y`);
    const pkg = tablePackage(`id,amount,day\n${rows.join('\n')}\n`, {
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'amount', type: 'integer' },
          { name: 'day', type: 'date' },
        ],
      },
    });
    const { out } = await runCli(['validate', pkg, '--limit-errors', '25'], { tty: true });
    const plain = stripVTControlCharacters(out);
    const tail = plain.trimEnd().split('\n').slice(-6).join('\n');
    expect(tail).toContain('by type:  type-error 25');
    expect(tail).toContain('by field: amount 13, day 12');
    expect(tail).toContain(
      'data: stopped after 25 errors, the error limit; more may follow (--limit-errors 0 shows them all)',
    );
    expect(plain.trimEnd().split('\n').at(-1)).toMatch(
      /^✖ invalid: at least 25 errors in 1 of 1 resource \(.+\); stopped at the error limit \(--limit-errors 0 shows every error\)$/,
    );
    // One row, two bad cells: the row is shown once, with both cells marked.
    expect(plain.match(/│ 0, \[x0\], \[y\]/g)).toHaveLength(1);
    const piped = await runCli(['validate', pkg, '--limit-errors', '25']);
    expect(piped.out.trimEnd().split('\n').at(-1)).toContain('at least 25 errors');
  });

  it('shows on a terminal how far a large table is read: bytes of the size, percentage, rate', async () => {
    const rows = Array.from(
      { length: 3_000_000 },
      (_, index) => `${String(index)},name ${String(index)}`,
    );
    const pkg = tablePackage(`id,name\n${rows.join('\n')}\n`);
    const { code, err } = await runCli(['validate', pkg], { tty: true });
    expect(code).toBe(0);
    expect(stripVTControlCharacters(err)).toMatch(
      /validating data \(1\/1\) · \d+% · [\d.]+ MB of [\d.]+ MB/,
    );
  });

  it('words its messages plainly, and quotes labels and names', async () => {
    const { out } = await runCli(['--json', 'validate', join(EXAMPLES, 'invalid-data')]);
    const messages = (JSON.parse(out) as { tasks: { errors: { message: string }[] }[] }).tasks
      .flatMap((task) => task.errors)
      .map((error) => error.message);
    expect(messages.join('\n')).not.toMatch(/row at position|codec can't/);
    expect(messages).toContain(
      'The cell "G" in row "4" and field "name" at position "3" does not conform to a constraint: constraint "minLength" is "2"',
    );
    const latin = tablePackage(Buffer.from('name\nK\xf6ln\n', 'latin1'), { encoding: 'utf-8' });
    const decoded = await runCli(['--json', 'validate', latin]);
    expect(decoded.out).toContain('byte 0xf6 at offset 6 is not valid utf-8');
  });

  it('puts header errors on their line in GitHub annotations', async () => {
    const pkg = tablePackage('id,nom\n1,a\n', {
      schema: { fields: [{ name: 'id' }, { name: 'name' }] },
    });
    const { out } = await runCli(['validate', pkg, '--format', 'github']);
    expect(out).toMatch(/^::error file=[^,]+,line=1,col=2,title=Incorrect Label::/m);
  });

  it('names what --pick-errors and --skip-errors take, with a did-you-mean', async () => {
    const picked = await runCli([
      'validate',
      join(EXAMPLES, 'cities'),
      '--pick-errors',
      'type-eror,#cel',
    ]);
    expect(picked.code).toBe(2);
    expect(picked.err).toContain('"type-eror": did you mean type-error?');
    expect(picked.err).toContain('"#cel": did you mean #cell?');
    expect(picked.err).toContain('tags: #table #header #label #row #cell #file');
    const skipped = await runCli(['validate', join(EXAMPLES, 'cities'), '--skip-errors', 'zzz']);
    expect(skipped.err).toContain('--skip-errors: unknown error type or tag: zzz');
  });

  it('refuses --json with --format github as a usage error', async () => {
    const { code, out } = await runCli([
      '--json',
      'validate',
      join(EXAMPLES, 'cities'),
      '--format',
      'github',
    ]);
    expect(code).toBe(2);
    expect(JSON.parse(out)).toMatchObject({ error: { code: 'E_USAGE' } });
  });

  it('exits 2 with a hint when the source does not exist, also as JSON', async () => {
    const human = await runCli(['validate', join(EXAMPLES, 'nowhere')]);
    expect(human.code).toBe(2);
    expect(human.err).toMatch(/^error: ".*nowhere" does not exist\nhint: /);
    const json = await runCli(['--json', 'validate', join(EXAMPLES, 'nowhere')]);
    expect(JSON.parse(json.out)).toMatchObject({ error: { code: 'E_INPUT' } });
  });

  it('returns 130 when interrupted', async () => {
    const controller = new AbortController();
    controller.abort();
    const { code } = await runCli(['validate', join(EXAMPLES, 'cities')], {
      signal: controller.signal,
    });
    expect(code).toBe(130);
  });
});

describe('data help and version', () => {
  it('says in data help exit-codes what the README says', async () => {
    const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');
    const section = readme.split('## Exit codes')[1]?.split('\n## ')[0] ?? '';
    const rows = [...section.matchAll(/^\| (\d+) \| (.+) \|$/gm)].map(
      (row) => `${row[1] ?? ''} ${(row[2] ?? '').replace(/`/g, '')}`,
    );
    const { out } = await runCli(['help', 'exit-codes']);
    const printed = out
      .split('\n')
      .slice(2)
      .filter((line) => line.trim() !== '')
      .map((line) => line.trim().replace(/^(\d+)\s+/, '$1 '));
    expect(rows.length).toBeGreaterThan(5);
    expect(printed).toEqual(rows);
  });

  it('shows in every command the global options it honours, and examples', async () => {
    for (const command of [
      'validate',
      'publish',
      'get',
      'info',
      'login',
      'logout',
      'whoami',
      'serve',
    ]) {
      const { out } = await runCli([command, '--help']);
      expect(out, command).toContain('Global Options:');
      expect(out, command).toContain('--json');
      expect(out, command).toContain('Examples:');
    }
    const { out } = await runCli(['validate', '--help']);
    expect(out).toContain('#table #header #label #row #cell #file');
    for (const type of ['type-error', 'missing-label', 'foreign-key', 'unique-error'])
      expect(out).toContain(type);
  });

  it('prints the exit codes', async () => {
    const { code, out } = await runCli(['help', 'exit-codes']);
    expect(code).toBe(0);
    for (const exit of [0, 1, 2, 3, 4, 70, 130])
      expect(out).toMatch(new RegExp(`^\\s+${String(exit)}  `, 'm'));
  });

  it('prints help for a command and refuses an unknown topic', async () => {
    expect((await runCli(['help', 'validate'])).out).toContain('--limit-errors');
    expect((await runCli(['help', 'nothing'])).code).toBe(2);
    expect((await runCli(['--help'])).out).toContain('validate');
  });

  it('prints the version', async () => {
    const { code, out } = await runCli(['--version']);
    expect(code).toBe(0);
    expect(out).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  describe('workbooks', () => {
    const BOOK = join(import.meta.dirname, '../fixtures/sheets/book.xlsx');

    it('validates the example package whose tables are two sheets of one workbook', async () => {
      const { code, out } = await runCli(['validate', join(EXAMPLES, 'weather-stations')]);
      expect(code).toBe(0);
      expect(out).toMatch(/^✔ valid: 3 resources, 14 rows checked/);
    });

    it('checks the sheet --sheet names, by name or number', async () => {
      for (const sheet of ['problems', '2']) {
        const { code, out } = await runCli(['validate', BOOK, '--sheet', sheet]);
        expect(code).toBe(1);
        expect(out).toContain('book\t4\t\tblank-row\tRow "4" is completely blank');
      }
      const missing = await runCli(['validate', BOOK, '--sheet', 'Problems']);
      expect(missing.code).toBe(1);
      expect(missing.out).toContain(
        'the workbook has no sheet "Problems"; its sheets are 1. "cities", 2. "problems", 3. "offset"',
      );
    });

    it('refuses --sheet for what is not a single workbook, as a usage error', async () => {
      for (const source of [join(EXAMPLES, 'cities'), tablePackage('id\n1\n')]) {
        const { code, err } = await runCli(['validate', source, '--sheet', '1']);
        expect(code).toBe(2);
        expect(err).toContain('--sheet is for a single workbook (.xlsx, .xls or .ods)');
        expect(err).toContain('"dialect": {"sheetName": "Prices"}');
      }
    });
  });

  it('checks keys on disk past --key-memory, and refuses a budget that is no number', async () => {
    const rows = Array.from(
      { length: 70_000 },
      (_, index) => `${String(index === 69_999 ? 1 : index + 1)}\n`,
    );
    const dir = tablePackage(`id\n${rows.join('')}`, {
      schema: { fields: [{ name: 'id', type: 'integer' }], primaryKey: 'id' },
    });
    const { code, out } = await runCli(['validate', dir, '--key-memory', '0.001', '--json']);
    expect(code).toBe(1);
    const report = JSON.parse(out) as {
      tasks: { warnings: string[]; errors: { note: string }[] }[];
    };
    expect(report.tasks[0]?.errors.map((error) => error.note)).toEqual(['the same as in row "2"']);
    expect(report.tasks[0]?.warnings[0]).toMatch(/^keys outgrew 1,049 bytes of memory/);
    const bad = await runCli(['validate', dir, '--key-memory', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('expected a number of megabytes');
  });
});
