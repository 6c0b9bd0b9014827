/**
 * The CLI package installed alone, as a user installs it: packed by npm from the build, then
 * `npm install --omit=dev --offline` of the tarball into an empty folder outside the checkout,
 * from npm's cache (a lockfile made from the workspace's names each package, see lockfile.ts).
 * It validates, in its main thread and in its workers, carries none of the hub's server
 * dependencies, and `data serve` says that the hub is not installed and where to get it.
 */
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lockfileForTarball } from './lockfile.js';

const ROOT = join(import.meta.dirname, '../..');
const CLI = join(ROOT, 'packages/cli');

/** What the hub alone needs: none of it may be in an install of the CLI. */
const HUB_ONLY = [
  '@aws-sdk',
  '@data/hub',
  '@opentelemetry',
  'busboy',
  'markdown-it',
  'openid-client',
  'pg',
  'prom-client',
];

const folder = mkdtempSync(join(tmpdir(), 'data-cli-alone-'));
const home = join(folder, 'home');
const install = join(folder, 'install');

/** npm as the test runner was started with (npm test), or the one on PATH. */
function npm(args: string[], cwd: string) {
  const execpath = process.env.npm_execpath;
  const [command, first] =
    execpath && /npm-cli\.js$/.test(execpath) ? [process.execPath, [execpath]] : ['npm', []];
  const run = spawnSync(command, [...first, ...args, '--no-audit', '--no-fund'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, npm_config_loglevel: 'error' },
    timeout: 240_000,
  });
  if (run.status !== 0)
    throw new Error(`npm ${args.join(' ')} failed (${String(run.status)}): ${run.stderr}`);
  return run.stdout;
}

function data(args: string[]) {
  const run = spawnSync(process.execPath, [join(install, 'node_modules/.bin/data'), ...args], {
    cwd: install,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: home, NO_COLOR: '1', DATA_KEYCHAIN: '0' },
    timeout: 120_000,
  });
  return { code: run.status, out: run.stdout, err: run.stderr };
}

function installed(): string[] {
  const top = join(install, 'node_modules');
  return readdirSync(top)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) =>
      name.startsWith('@')
        ? readdirSync(join(top, name)).map((inside) => `${name}/${inside}`)
        : [name],
    );
}

beforeAll(() => {
  if (!existsSync(join(CLI, 'dist/bundle/cli.cjs')))
    throw new Error('packages/cli is not built: run npm run build first');
  const packed = JSON.parse(npm(['pack', '--json', '--pack-destination', folder], CLI)) as {
    filename: string;
  }[];
  const file = packed[0]?.filename ?? 'missing';
  mkdirSync(install);
  mkdirSync(home);
  const tarball = join(install, file);
  copyFileSync(join(folder, file), tarball);
  writeFileSync(
    join(install, 'package.json'),
    JSON.stringify({ name: 'install', private: true, dependencies: { data: `file:${file}` } }),
  );
  writeFileSync(
    join(install, 'package-lock.json'),
    JSON.stringify(
      lockfileForTarball(join(ROOT, 'package-lock.json'), 'packages/cli', 'data', {
        file,
        path: tarball,
      }),
      null,
      2,
    ),
  );
  npm(['install', '--omit=dev', '--offline'], install);
}, 300_000);

afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe('the CLI package installed alone', () => {
  it('tells its version and validates, in its main thread and in its workers', () => {
    expect(data(['--version'])).toMatchObject({ code: 0, out: '0.1.0\n' });
    const cities = data(['validate', join(ROOT, 'examples/cities')]);
    expect(cities.err).toBe('');
    expect(cities.code).toBe(0);
    expect(cities.out).toContain('✔ valid: 2 resources, 12 rows checked');
    // Over 32 MB: two byte ranges on two workers, the worker bundle the package carries.
    const rows = Array.from({ length: 2_400_000 }, (_, index) => `${String(index)},xxxxxxxxxx`);
    writeFileSync(join(install, 'big.csv'), `id,v\n${rows.join('\n')}\n`);
    const big = data(['--debug', 'validate', 'big.csv']);
    expect(big.code).toBe(0);
    expect(big.out).toContain('2,400,000 rows checked');
    expect(big.err).toContain('big: validated as two byte ranges on two workers');
  });

  it("holds none of the hub's server dependencies, nor the workspace's packages", () => {
    const names = installed();
    expect(names).toContain('data');
    expect(names).toContain('undici');
    for (const name of names) {
      expect(
        HUB_ONLY.some((hub) => name === hub || name.startsWith(`${hub}/`)),
        name,
      ).toBe(false);
      expect(name.startsWith('@data/'), name).toBe(false);
    }
  });

  it('says that data serve needs the hub, and how to get it, with no stack trace', () => {
    const serve = data(['serve', '--port', '0']);
    expect(serve.code).toBe(2);
    expect(serve.out).toBe('');
    expect(serve.err).toContain('error: the hub is not installed');
    expect(serve.err).toContain('@data/hub');
    expect(serve.err).toMatch(/hint: run data serve from a clone/);
    expect(serve.err).not.toMatch(/^\s+at /m);
    const gc = data(['--json', 'serve', 'gc']);
    expect(gc.code).toBe(2);
    expect(JSON.parse(gc.out)).toMatchObject({ error: { code: 'E_USAGE' } });
    // Every other command is there: the hub is imported only when a serve command runs.
    expect(data(['--help'])).toMatchObject({ code: 0 });
    expect(data(['serve', '--help'])).toMatchObject({ code: 0 });
  });
});
