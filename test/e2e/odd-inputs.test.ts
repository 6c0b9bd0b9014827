import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The odd inputs of test/commands/odd-inputs.test.ts that need a process of their own: a
 * named pipe no one writes to (whose open would block a thread for ever, so a hang is
 * killed and named here), a file its reader may not open, and one whose reads fail.
 */

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');
const DEADLINE_MS = 20_000;
/** Who runs data for the file it may not read: root reads everything. */
const NOBODY = 65534;
const asRoot = process.getuid?.() === 0;

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'data-test-odd-e2e-'));
  // Reachable by the unprivileged user the unreadable file's test runs as.
  chmodSync(dir, 0o755);
  for (const name of ['pipe', 'pipe-package', 'secret', 'config']) mkdirSync(join(dir, name));
  chmodSync(join(dir, 'config'), 0o777);
  execFileSync('mkfifo', [join(dir, 'pipe', 'rows.csv')]);
  execFileSync('mkfifo', [join(dir, 'pipe-package', 'rows.csv')]);
  writeFileSync(
    join(dir, 'pipe-package', 'datapackage.json'),
    JSON.stringify({ name: 'p', resources: [{ name: 'rows', path: 'rows.csv' }] }),
  );
  writeFileSync(join(dir, 'secret', 'rows.csv'), 'id,name\n1,a\n');
  chmodSync(join(dir, 'secret', 'rows.csv'), 0o000);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs bin/data; one still running at the deadline is killed and fails the test by name. */
function data(
  args: string[],
  options: { uid?: number } = {},
): Promise<{ code: number | null; err: string }> {
  const child = spawn(process.execPath, [BIN, '--api', 'http://127.0.0.1:9', ...args], {
    cwd: dir,
    env: {
      ...process.env,
      NO_COLOR: '1',
      HOME: join(dir, 'config'),
      DATA_CONFIG_DIR: join(dir, 'config'),
      DATA_KEYCHAIN: '0',
      DATA_TOKEN: 'odd-inputs',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
    ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.uid }),
  });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`data ${args.join(' ')} still ran after ${String(DEADLINE_MS)} ms`));
    }, DEADLINE_MS);
    child.on('close', (code) => {
      clearTimeout(deadline);
      resolve({ code, err });
    });
  });
}

function expectPlain(err: string): void {
  expect(err).not.toMatch(/This is a bug|node:internal|\n\s+at /);
}

const COMMANDS: [string, (path: string) => string[]][] = [
  ['validate', (path) => ['validate', path]],
  ['info', (path) => ['info', path]],
  ['cat', (path) => ['cat', path]],
  ['publish --dry-run', (path) => ['publish', '--dry-run', path]],
  ['diff', (path) => ['diff', path, path]],
];

describe('a named pipe no one writes to', () => {
  it.each(COMMANDS)(
    '%s of it is refused at once as no file, with exit 2',
    async (_, argsOf) => {
      const before = readdirSync(join(dir, 'pipe'));
      const { code, err } = await data(argsOf('pipe/rows.csv'));
      expectPlain(err);
      expect(code, err).toBe(2);
      expect(err).toMatch(/named pipe|no datapackage\.json/);
      expect(readdirSync(join(dir, 'pipe'))).toEqual(before);
    },
    DEADLINE_MS + 5000,
  );

  it(
    'init of a folder holding only one describes nothing: exit 2, nothing written',
    async () => {
      const { code, err } = await data(['init', 'pipe']);
      expectPlain(err);
      expect(code, err).toBe(2);
      expect(err).toContain('holds no data file');
      expect(readdirSync(join(dir, 'pipe'))).toEqual(['rows.csv']);
    },
    DEADLINE_MS + 5000,
  );

  it(
    'as the resource of a package, it makes the package invalid (exit 1) and names it',
    async () => {
      const { code, err } = await data(['validate', 'pipe-package', '--format', 'json']);
      expectPlain(err);
      expect(code, err).toBe(1);
      const cat = await data(['cat', 'pipe-package']);
      expectPlain(cat.err);
      expect(cat.code, cat.err).toBe(1);
      expect(cat.err).toContain('is a named pipe, not a file');
    },
    2 * DEADLINE_MS + 5000,
  );
});

describe('a file its reader may not open', () => {
  it.each(COMMANDS)(
    '%s of it says so, with exit 2',
    async (_, argsOf) => {
      const { code, err } = await data(argsOf('secret/rows.csv'), asRoot ? { uid: NOBODY } : {});
      expectPlain(err);
      expect(code, err).toBe(2);
      expect(err).toContain('secret/rows.csv: permission denied');
    },
    DEADLINE_MS + 5000,
  );
});

describe('a file whose reads fail (/proc/self/mem: EIO at its start)', () => {
  // publish reads it only to hash it once it is valid; diff of a file that is no table by
  // its name compares descriptors alone.
  it.each(COMMANDS.filter(([command]) => command !== 'publish --dry-run' && command !== 'diff'))(
    '%s of it names the file and the failure, with exit 2',
    async (_, argsOf) => {
      const { code, err } = await data(argsOf('/proc/self/mem'));
      expectPlain(err);
      expect(code, err).toBe(2);
      expect(err).toContain('input/output error');
    },
    DEADLINE_MS + 5000,
  );
});
