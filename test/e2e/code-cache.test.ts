/**
 * bin/data compiles its bundle from a cache written after a command's first run: the real
 * program, run again and again on one cache folder.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/data');
const CITIES = join(ROOT, 'examples/cities');

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
    const first = data(dir, ['validate', '--json', CITIES]);
    expect(first.status).toBe(0);
    expect(first.fate).toBe('missing, written');
    const file = first.file ?? '';
    expect(file).toMatch(/-validate\.bin$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dir, 'code')).mode & 0o777).toBe(0o700);
    const second = data(dir, ['validate', '--json', CITIES]);
    expect(second.fate).toBe('used');
    const withoutCache = (out: string) => out.replace(/"seconds": [\d.]+/g, '');
    expect(withoutCache(second.stdout)).toBe(withoutCache(first.stdout));
    expect(second.status).toBe(0);
  });

  it('is written again when it is damaged, and a stale one of another build is removed', () => {
    const dir = freshFolder();
    const file = data(dir, ['validate', CITIES]).file ?? '';
    writeFileSync(file, 'not a code cache');
    const stale = join(dir, 'code', `0000000000000000-${process.version}-x64-validate.bin`);
    writeFileSync(stale, 'from another build');
    const damaged = data(dir, ['validate', CITIES]);
    expect(damaged.status).toBe(0);
    expect(damaged.stdout).toMatch(/valid: 2 resources/);
    expect(damaged.fate).toBe('rejected, written');
    expect(readdirSync(join(dir, 'code'))).toEqual([file.split('/').pop()]);
    expect(data(dir, ['validate', CITIES]).fate).toBe('used');
  });

  it('is not written for a word that names no command, nor when turned off', () => {
    const dir = freshFolder();
    const unknown = data(dir, ['valdate', CITIES]);
    expect(unknown.status).toBe(2);
    expect(unknown.fate).toBe('missing, not written: no command ran');
    const off = data(dir, ['validate', CITIES], { NODE_DISABLE_COMPILE_CACHE: '1' });
    expect(off.status).toBe(0);
    expect(off.fate).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
  });

  it('leaves the command working where it cannot be written', () => {
    const file = join(freshFolder(), 'a-file');
    writeFileSync(file, '');
    const run = data(join(file, 'cache'), ['validate', CITIES]);
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/valid: 2 resources/);
    expect(run.fate).toMatch(/^missing, not written: ENOTDIR/);
  });
});
