import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExitPromptError } from '@inquirer/core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { writeOds, writeXlsx } from '../helpers/workbook.js';

/**
 * Every command that reads a file, over files a user may well point it at: each ends with
 * the exit code the README's table gives (never 70), says why without a stack trace, and
 * writes nothing. The FIFO and the file its reader may not open need a process of their own:
 * test/e2e/odd-inputs.test.ts.
 */

/** What a case is, and so the exit code each command owes it. */
type Kind =
  /** A file that reads as a table with no error. */
  | 'valid'
  /** A file that is there but holds no table a reader can read, or an invalid one: exit 1. */
  | 'invalid'
  /** A file that is no table (a PDF): invalid as a single file, compared as a file by diff. */
  | 'not-a-table'
  /** A path that is not a usable file (missing, a folder, a dangling link): exit 2. */
  | 'not-a-file';

interface Case {
  name: string;
  /** The file's name in the case's folder. */
  file: string;
  kind: Kind;
  make: (path: string) => void | Promise<void>;
}

const GOOD = 'id,name\n1,Zürich\n';
const HUGE_LINE_BYTES = 50 * 1024 * 1024;

function pseudoRandomBytes(length: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = 12345;
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) >>> 0;
    bytes[i] = state >>> 24;
  }
  return bytes;
}

const PDF = Buffer.concat([
  Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<< /Type /Catalog /Pages 2 0 R >>\nendobj\n'),
  pseudoRandomBytes(2048),
  Buffer.from('\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n'),
]);

function utf16(text: string, endian: 'le' | 'be', bom: boolean): Buffer {
  const le = Buffer.from(`${bom ? '\ufeff' : ''}${text}`, 'utf16le');
  return endian === 'le' ? le : Buffer.from(le).swap16();
}

async function truncatedWorkbook(path: string, write: typeof writeXlsx): Promise<void> {
  await write(path, '<row r="1"><c r="A1" t="inlineStr"><is><t>id</t></is></c></row>');
  truncateSync(path, Math.floor(statSync(path).size / 2));
}

const CASES: Case[] = [
  { name: 'an empty file', file: 'empty.csv', kind: 'invalid', make: (p) => writeFileSync(p, '') },
  {
    name: 'a header and no rows',
    file: 'header.csv',
    kind: 'valid',
    make: (p) => writeFileSync(p, 'id,name\n'),
  },
  {
    name: 'binary bytes named .csv',
    file: 'binary.csv',
    kind: 'invalid',
    make: (p) => writeFileSync(p, pseudoRandomBytes(4096)),
  },
  {
    name: 'an HTML page saved as .csv',
    file: 'page.csv',
    kind: 'invalid',
    make: (p) =>
      writeFileSync(
        p,
        '<!DOCTYPE html>\n<html lang="en">\n<head><title>Sign in</title></head>\n<body><form method="post"><input name="user"></form></body>\n</html>\n',
      ),
  },
  {
    name: 'a PDF named .csv',
    file: 'report.csv',
    kind: 'invalid',
    make: (p) => writeFileSync(p, PDF),
  },
  { name: 'a PDF', file: 'report.pdf', kind: 'not-a-table', make: (p) => writeFileSync(p, PDF) },
  {
    name: 'NUL bytes in a cell',
    file: 'nul.csv',
    kind: 'invalid',
    make: (p) => writeFileSync(p, 'id,name\n1,a\0\0b\n'),
  },
  ...(['le', 'be'] as const).flatMap((endian) =>
    [true, false].map((bom): Case => ({
      name: `UTF-16 ${endian.toUpperCase()} ${bom ? 'with' : 'without'} a BOM`,
      file: `utf16${endian}${bom ? '-bom' : ''}.csv`,
      // Without a BOM, UTF-16 of ASCII is every other byte NUL: read as UTF-8 it is invalid.
      kind: bom ? 'valid' : 'invalid',
      make: (p) => writeFileSync(p, utf16(GOOD, endian, bom)),
    })),
  ),
  {
    name: 'one huge line with no newline',
    file: 'line.csv',
    kind: 'valid',
    make: (p) => writeFileSync(p, Buffer.alloc(HUGE_LINE_BYTES, 'x')),
  },
  {
    name: 'a table in a file with no extension',
    file: 'rows',
    kind: 'valid',
    make: (p) => writeFileSync(p, GOOD),
  },
  { name: 'a folder named x.csv', file: 'x.csv', kind: 'not-a-file', make: (p) => mkdirSync(p) },
  {
    name: 'a symbolic link to nothing',
    file: 'link.csv',
    kind: 'not-a-file',
    make: (p) => symlinkSync(join(p, '..', 'gone.csv'), p),
  },
  {
    name: 'an empty .xlsx',
    file: 'empty.xlsx',
    kind: 'invalid',
    make: (p) => writeFileSync(p, ''),
  },
  {
    name: 'a truncated .xlsx',
    file: 'cut.xlsx',
    kind: 'invalid',
    make: (p) => truncatedWorkbook(p, writeXlsx),
  },
  {
    name: 'a truncated .ods',
    file: 'cut.ods',
    kind: 'invalid',
    make: (p) => truncatedWorkbook(p, (path, rows) => writeOds(path, rows)),
  },
  { name: 'a path to nothing', file: 'missing.csv', kind: 'not-a-file', make: () => undefined },
];

let root: string;
let configDir: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'data-test-odd-'));
  configDir = mkdtempSync(join(tmpdir(), 'data-test-odd-config-'));
  writeFileSync(join(root, 'good.csv'), GOOD);
  for (const c of CASES) {
    mkdirSync(join(root, caseDir(c)));
    await c.make(join(root, caseDir(c), c.file));
    mkdirSync(join(root, packageDir(c)));
    await c.make(join(root, packageDir(c), c.file));
    writeFileSync(
      join(root, packageDir(c), 'datapackage.json'),
      JSON.stringify({ name: 'odd', resources: [{ name: 'odd', path: c.file }] }),
    );
  }
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(configDir, { recursive: true, force: true });
});

function caseDir(c: Case): string {
  return c.file.replace(/\W/g, '-');
}

/** The same file named by the datapackage.json of a package. */
function packageDir(c: Case): string {
  return `package-${caseDir(c)}`;
}

/** Every entry under a folder with its size: what a command must leave as it was. */
function listing(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((entry) => {
      const stat = statSync(join(dir, entry), { throwIfNoEntry: false });
      return `${entry} ${stat?.isDirectory() ? 'dir' : String(stat?.size ?? 'dangling')}`;
    });
}

/** Publishing needs the hub only once the data passed: nothing answers on port 9. */
function data(args: string[], terminal = false) {
  return runCli(['--api', 'http://127.0.0.1:9', ...args], {
    env: { DATA_CONFIG_DIR: configDir, DATA_TOKEN: 'odd-inputs' },
    ...(terminal ? { tty: true, stdinTTY: true } : {}),
  });
}

function expectPlainFailure(err: string): void {
  expect(err).not.toMatch(/This is a bug|node:internal|\n\s+at /);
}

/** The exit code each command owes a single file of a kind, with why where it is not obvious. */
function expectedOfFile(command: string, kind: Kind): number[] {
  if (kind === 'not-a-file') return [2];
  // A file that is no table is compared as a file: alike with itself, unlike good.csv.
  if (kind === 'not-a-table' && command.startsWith('diff'))
    return command === 'diff-self' ? [0] : [1];
  // diff's exit 1 means "changed": a table it cannot read is an input it cannot use.
  if (command === 'diff-self') return kind === 'valid' ? [0] : [2];
  if (command === 'diff-good') return kind === 'valid' ? [0, 1] : [2];
  // Valid data is validated, then the hub is asked: nothing answers there (exit 3).
  if (command === 'publish') return kind === 'valid' ? [3] : [1];
  return kind === 'valid' ? [0] : [1];
}

/**
 * What each command owes a package whose one resource is the file: a resource that cannot
 * be read makes the package invalid (exit 1), and diff cannot compare it (exit 2). A PDF is
 * a resource a package may hold.
 */
function expectedOfPackage(command: string, kind: Kind): number[] {
  const fine = kind === 'valid' || (kind === 'not-a-table' && command !== 'cat');
  if (command === 'diff-self') return fine ? [0] : [2];
  if (command === 'publish') return fine ? [3] : [1];
  return fine ? [0] : [1];
}

const COMMANDS: [string, (target: string) => string[]][] = [
  ['validate', (t) => ['validate', t]],
  ['info', (t) => ['info', t]],
  ['cat', (t) => ['cat', t]],
  ['publish', (t) => ['publish', '--dry-run', t]],
  ['diff-self', (t) => ['diff', t, t]],
  ['diff-good', (t) => ['diff', t, join(root, 'good.csv')]],
];

const DEADLINE_MS = 60_000;

describe.each(CASES)('$name ($file)', (c) => {
  const path = () => join(root, caseDir(c), c.file);
  const folder = () => join(root, caseDir(c));

  it.each(COMMANDS)(
    '%s of the file ends with its documented exit code, plainly, writing nothing',
    async (command, argsFor) => {
      const before = listing(root);
      const { code, err } = await data(argsFor(path()));
      expectPlainFailure(err);
      expect(expectedOfFile(command, c.kind), `exit ${String(code)}: ${err}`).toContain(code);
      expect(listing(root)).toEqual(before);
    },
    DEADLINE_MS,
  );

  it.each(COMMANDS.filter(([command]) => command !== 'diff-good'))(
    '%s of a package of it ends with its documented exit code, plainly, writing nothing',
    async (command, argsFor) => {
      const before = listing(root);
      const { code, err } = await data(argsFor(join(root, packageDir(c))));
      expectPlainFailure(err);
      expect(expectedOfPackage(command, c.kind), `exit ${String(code)}: ${err}`).toContain(code);
      expect(listing(root)).toEqual(before);
    },
    DEADLINE_MS,
  );

  it.each(COMMANDS.filter(([command]) => command !== 'diff-good'))(
    '%s of its folder, which no descriptor describes, is a usage error',
    async (command, argsFor) => {
      const before = listing(root);
      const { code, err } = await data(argsFor(folder()));
      expectPlainFailure(err);
      expect(code, err).toBe(2);
      expect(err).toMatch(/without a datapackage\.json|has no datapackage\.json/);
      expect(listing(root)).toEqual(before);
    },
    DEADLINE_MS,
  );

  it.each(COMMANDS.filter(([command]) => command === 'info' || command === 'cat'))(
    'with --json, %s of the file fails as one JSON document on stdout, with the same exit code',
    async (command, argsFor) => {
      const { code, out, err } = await runCli(['--json', ...argsFor(path())], {
        env: { DATA_CONFIG_DIR: configDir },
      });
      expect(expectedOfFile(command, c.kind), out).toContain(code);
      if (code === 0) return;
      expect(err).toBe('');
      const { error } = JSON.parse(out) as { error: { code: string; message: string } };
      expect(error.code).not.toBe('E_INTERNAL');
      expect(error.message).not.toBe('');
    },
    DEADLINE_MS,
  );

  it('init of the file is a usage error: it describes a folder', async () => {
    const before = listing(root);
    const { code, err } = await data(['init', path()]);
    expectPlainFailure(err);
    expect(code, err).toBe(2);
    expect(listing(root)).toEqual(before);
  });

  it(
    'init of its folder writes a descriptor that parses, or nothing and exit 2',
    async () => {
      const before = listing(root);
      const { code, err } = await data(['init', folder()]);
      expectPlainFailure(err);
      expect([0, 2], `exit ${String(code)}: ${err}`).toContain(code);
      const written = join(folder(), 'datapackage.json');
      if (code === 0) {
        expect(listing(root)).toEqual(
          [...before, `${caseDir(c)}/datapackage.json ${String(statSync(written).size)}`].sort(),
        );
        JSON.parse(readFileSync(written, 'utf8'));
        rmSync(written);
      } else expect(listing(root)).toEqual(before);
    },
    DEADLINE_MS,
  );
});

/** Descriptors no command can read a table from: validate reports each, the others refuse. */
const DESCRIPTORS: [string, string, string][] = [
  ['an empty descriptor', 'datapackage.json', ''],
  ['null', 'datapackage.json', 'null'],
  ['a list', 'datapackage.json', '[1, 2]'],
  ['resources that are text', 'datapackage.json', '{"name": "x", "resources": "abc"}'],
  [
    'a path that is a number',
    'datapackage.json',
    '{"name": "x", "resources": [{"name": "a", "path": 5}]}',
  ],
  ['YAML that does not parse', 'datapackage.yaml', 'a: [\n'],
];

describe.each(DESCRIPTORS)('a package whose descriptor is %s', (_, name, text) => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(root, 'descriptor-'));
    writeFileSync(join(dir, name), text);
    writeFileSync(join(dir, 'a.csv'), GOOD);
  });

  it.each([
    ['validate', [1]],
    ['info', [2]],
    ['cat', [2]],
    ['diff-self', [2]],
    // Refused as no descriptor (2), or validated and found invalid (1).
    ['publish', [1, 2]],
  ] as [string, number[]][])(
    '%s of it ends with its documented exit code, plainly',
    async (command, codes) => {
      const argsFor = COMMANDS.find(([named]) => named === command)?.[1] ?? (() => []);
      const before = listing(dir);
      const { code, err } = await data(argsFor(dir));
      expectPlainFailure(err);
      expect(codes, `exit ${String(code)}: ${err}`).toContain(code);
      expect(listing(dir)).toEqual(before);
    },
  );
});

describe('a question closed by Ctrl-C (ExitPromptError: a byte in raw mode, no signal)', () => {
  afterEach(() => {
    vi.doUnmock('@inquirer/confirm');
    vi.doUnmock('@inquirer/input');
  });

  /** Every question answers as the prompt library does when Ctrl-C is typed at it. */
  function closedByCtrlC(): void {
    const closed = () => Promise.reject(new ExitPromptError('User force closed the prompt'));
    vi.doMock('@inquirer/confirm', () => ({ default: closed }));
    vi.doMock('@inquirer/input', () => ({ default: closed }));
  }

  const onTerminal = (args: string[]) => data(args, true);

  it('is exit 130 at the delete question, and nothing is asked of the hub', async () => {
    closedByCtrlC();
    const { code, err } = await onTerminal(['delete', 'ada/old']);
    expect(code, err).toBe(130);
    expect(err).toBe('error: interrupted\n');
  });

  it('is exit 130 at the questions of init --interactive, with nothing written', async () => {
    closedByCtrlC();
    const dir = join(root, caseDir(CASES[1] as Case));
    const before = listing(dir);
    const { code, err } = await onTerminal(['init', '--interactive', dir]);
    expect(code, err).toBe(130);
    // After the progress of its reading, drawn on this terminal.
    expect(err).toMatch(/error: interrupted\n$/);
    expect(listing(dir)).toEqual(before);
  });

  it('refuses init --interactive, exit 2, where its questions could not be seen or answered', async () => {
    const dir = join(root, caseDir(CASES[1] as Case));
    const before = listing(dir);
    for (const where of [
      { stdinTTY: false, tty: true },
      // Standard input a terminal, stderr not (2>file): the questions would wait unseen.
      { stdinTTY: true, tty: false },
    ]) {
      const { code, out, err } = await runCli(['init', '--interactive', dir], {
        env: { DATA_CONFIG_DIR: configDir },
        ...where,
      });
      expect({ code, out, err }, JSON.stringify(where)).toEqual({
        code: 2,
        out: '',
        err: 'error: --interactive asks its questions on the terminal: standard input and standard error must both be one\nhint: run it in a terminal without redirecting them, or leave out --interactive\n',
      });
    }
    expect(listing(dir)).toEqual(before);
  });
});
