/**
 * bin/data compiles its bundle from a cache written after a command's first run: the real
 * program, run again and again on one cache folder.
 */
import { spawnSync } from 'node:child_process';
import {
  chownSync,
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');
// Validated in the calling thread (small, and no pattern to send it to a worker): one cache.
const SMALL = join(ROOT, 'examples/sales-v2');

function data(cacheDir: string, args: string[], env: Record<string, string> = {}) {
  const run = spawnSync(process.execPath, [BIN, '--debug', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', DATA_CACHE_DIR: cacheDir, ...env },
  });
  const said = /debug: code cache (\S+): (.*)/.exec(run.stderr);
  return { status: run.status, stdout: run.stdout, file: said?.[1], fate: said?.[2] };
}

const freshFolder = () => mkdtempSync(join(tmpdir(), 'data-code-cache-'));

describe('the code cache', () => {
  it('is written after the first run, then used, with the same output', () => {
    const dir = freshFolder();
    const first = data(dir, ['validate', '--json', SMALL]);
    expect(first.status).toBe(0);
    expect(first.fate).toBe('missing, written');
    const file = first.file ?? '';
    expect(file).toMatch(/-validate\.bin$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'code')).mode & 0o777).toBe(0o700);
    const second = data(dir, ['validate', '--json', SMALL]);
    expect(second.fate).toBe('used');
    const withoutCache = (out: string) => out.replace(/"seconds": [\d.]+/g, '');
    expect(withoutCache(second.stdout)).toBe(withoutCache(first.stdout));
    expect(second.status).toBe(0);
  });

  it('is written again when it is damaged; stale and partial ones are removed', () => {
    const dir = freshFolder();
    const file = data(dir, ['validate', SMALL]).file ?? '';
    writeFileSync(file, 'not a code cache');
    const stale = join(
      dir,
      'code',
      `cli_validate-0000000000000000-${process.version}-x64-validate.bin`,
    );
    writeFileSync(stale, 'from another build');
    writeFileSync(`${file}.1.partial`, 'left by a write that was cut off');
    const name = file.split('/').pop() ?? '';
    writeFileSync(join(dir, 'code', `.${name}.0123456789ab.part`), 'left by an atomic write');
    const damaged = data(dir, ['validate', SMALL]);
    expect(damaged.status).toBe(0);
    expect(damaged.stdout).toMatch(/valid: 2 resources/);
    expect(damaged.fate).toBe('rejected, written');
    expect(readdirSync(join(dir, 'code'))).toEqual([name]);
    expect(data(dir, ['validate', SMALL]).fate).toBe('used');
  });

  it('is not read when others could have written it', () => {
    const dir = freshFolder();
    const file = data(dir, ['validate', SMALL]).file ?? '';
    chmodSync(file, 0o622);
    const run = data(dir, ['validate', SMALL]);
    expect(run.status).toBe(0);
    expect(run.fate).toBe('missing, written');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(data(dir, ['validate', SMALL]).fate).toBe('used');
  });

  it.skipIf(process.getuid?.() !== 0)('is not read when another user owns it', () => {
    const dir = freshFolder();
    const file = data(dir, ['validate', SMALL]).file ?? '';
    chownSync(file, 65534, 65534);
    expect(data(dir, ['validate', SMALL]).fate).toBe('missing, written');
    expect(statSync(file).uid).toBe(0);
  });

  it('is not written for a word that names no command, nor when turned off', () => {
    const dir = freshFolder();
    const unknown = data(dir, ['valdate', SMALL]);
    expect(unknown.status).toBe(2);
    expect(unknown.fate).toBe('missing, not written: no command ran');
    const off = data(dir, ['validate', SMALL], { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(off.status).toBe(0);
    expect(off.fate).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('is written by the validation workers too, once their first work is done', () => {
    const dir = freshFolder();
    const table = join(freshFolder(), 'large.csv');
    const row = (i: number) =>
      `${String(i)},${String(i % 97)}.5,the name of row ${String(i % 13)}\n`;
    const rows = Array.from({ length: 1_200_000 }, (_, i) => row(i)).join('');
    writeFileSync(table, `id,amount,name\n${rows}`);
    // Large enough to be split in two: with no pattern, the first range is read in this
    // thread, beside a range worker; with one, in a package worker beside it.
    expect(statSync(table).size).toBeGreaterThan(32 * 1024 * 1024);
    const workerCaches = () =>
      readdirSync(join(dir, 'code')).filter((name) => name.startsWith('worker-'));
    expect(data(dir, ['validate', '--json', table]).status).toBe(0);
    expect(workerCaches()).toEqual([expect.stringMatching(/-range\.bin$/)]);
    const fields = [
      { name: 'id', constraints: { pattern: '[0-9]+' } },
      { name: 'amount', type: 'number' },
      { name: 'name' },
    ];
    writeFileSync(
      join(dirname(table), 'datapackage.json'),
      JSON.stringify({ resources: [{ name: 'large', path: 'large.csv', schema: { fields } }] }),
    );
    const first = data(dir, ['validate', '--json', dirname(table)]);
    expect(first.status).toBe(0);
    expect(workerCaches()).toEqual([
      expect.stringMatching(/-package\.bin$/),
      expect.stringMatching(/-range\.bin$/),
    ]);
    for (const name of readdirSync(join(dir, 'code')))
      writeFileSync(join(dir, 'code', name), 'damaged');
    const damaged = data(dir, ['validate', '--json', dirname(table)]);
    const again = data(dir, ['validate', '--json', dirname(table)]);
    const withoutSeconds = (out: string) => out.replace(/"seconds": [\d.]+/g, '');
    expect(withoutSeconds(damaged.stdout)).toBe(withoutSeconds(first.stdout));
    expect(withoutSeconds(again.stdout)).toBe(withoutSeconds(first.stdout));
    expect(JSON.parse(again.stdout)).toMatchObject({
      valid: true,
      tasks: [{ stats: { rows: 1_200_000 } }],
    });
    for (const name of readdirSync(join(dir, 'code')))
      expect(readFileSync(join(dir, 'code', name), 'utf8')).not.toBe('damaged');
  });

  it('is written by a run that matched a pattern, and used by the next', () => {
    // examples/sales-v2 has a time's format (%H:%M), matched in this thread under V8's RegExp
    // settings, which the run sets once it compiles it; the cache is made at the exit without
    // them. examples/cities's pattern is plain ([A-Z]{2}), which changes no setting.
    const dir = freshFolder();
    const cities = join(ROOT, 'examples/cities');
    expect(data(dir, ['validate', SMALL]).fate).toBe('missing, written');
    const second = data(dir, ['validate', cities]);
    expect(second.status).toBe(0);
    expect(second.fate).toBe('used');
    expect(data(dir, ['validate', SMALL]).fate).toBe('used');
  });

  it('is of a bundle that holds validate alone for data validate, of the whole CLI else', () => {
    const dir = freshFolder();
    expect(data(dir, ['validate', SMALL]).file).toMatch(/[/\\]cli_validate-[0-9a-f]{16}-/);
    expect(data(dir, ['info', SMALL]).file).toMatch(/[/\\]cli-[0-9a-f]{16}-/);
    const validateOnly = readFileSync(
      join(ROOT, 'packages/cli/dist/bundle/cli-validate.cjs'),
      'utf8',
    );
    expect(validateOnly).toContain('function registerValidate(');
    expect(validateOnly).not.toContain('function registerPublish(');
  });

  it('is made of scripts of ASCII only, which V8 holds at a byte a character', () => {
    for (const name of ['cli.cjs', 'cli-validate.cjs', 'worker.cjs']) {
      const source = readFileSync(join(ROOT, 'packages/cli/dist/bundle', name), 'latin1');
      expect([name, /[^\0-\x7f]/.exec(source)?.index]).toEqual([name, undefined]);
    }
  });

  it('leaves the command working where it cannot be written', () => {
    const file = join(freshFolder(), 'a-file');
    writeFileSync(file, '');
    const run = data(join(file, 'cache'), ['validate', SMALL]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/valid: 2 resources/);
    expect(run.fate).toMatch(/^missing, not written: ENOTDIR/);
  });
});

describe('the start of a small validation', () => {
  /**
   * Node.js's built-in modules a validation of a small local package has no use for: each one
   * loaded at the top of a module costs every run (node:crypto, imported by the atomic write
   * that the settings use, added 8% to data validate examples/cities).
   */
  const UNUSED = ['crypto', 'tls', 'http', 'https', 'zlib', 'child_process', 'worker_threads'];

  it('loads none of the built-in modules it does not use', () => {
    const dir = freshFolder();
    const hook = join(dir, 'modules.cjs');
    const list = join(dir, 'modules.txt');
    writeFileSync(
      hook,
      `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(list)}, process.moduleLoadList.join('\\n')));`,
    );
    for (let run = 0; run < 2; run++) {
      const started = spawnSync(process.execPath, ['--require', hook, BIN, 'validate', SMALL], {
        encoding: 'utf8',
        env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', DATA_CACHE_DIR: dir },
      });
      expect(started.status).toBe(0);
    }
    const loaded = readFileSync(list, 'utf8').split('\n');
    expect(loaded.length).toBeGreaterThan(20);
    expect(UNUSED.filter((name) => loaded.includes(`NativeModule ${name}`))).toEqual([]);
  });
});
