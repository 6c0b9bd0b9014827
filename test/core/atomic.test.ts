import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  replaceFile,
  temporaryBeside,
  writeFileAtomic,
  writeFileAtomicSync,
} from '../../packages/core/src/files/atomic.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'atomic-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('the atomic write', () => {
  it('replaces a file whole, with its mode, and leaves nothing beside it', async () => {
    const file = join(dir, 'settings.json');
    writeFileSync(file, 'old');
    await writeFileAtomic(file, 'new', { mode: 0o600 });
    expect(readFileSync(file, 'utf8')).toBe('new');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    writeFileAtomicSync(file, new TextEncoder().encode('newer'), { mode: 0o640 });
    expect(readFileSync(file, 'utf8')).toBe('newer');
    expect(statSync(file).mode & 0o777).toBe(0o640);
    expect(readdirSync(dir)).toEqual(['settings.json']);
  });

  it('leaves the old file whole when interrupted, and removes its temporary file', async () => {
    const file = join(dir, 'datapackage.json');
    writeFileSync(file, 'old');
    const controller = new AbortController();
    controller.abort();
    await expect(writeFileAtomic(file, 'new', { signal: controller.signal })).rejects.toThrow();
    expect(readFileSync(file, 'utf8')).toBe('old');
    expect(readdirSync(dir)).toEqual(['datapackage.json']);
  });

  it('fails without writing when the folder cannot take the file', async () => {
    const file = join(dir, 'missing', 'a.json');
    await expect(writeFileAtomic(file, 'x')).rejects.toMatchObject({ code: 'ENOENT' });
    expect(() => {
      writeFileAtomicSync(file, 'x');
    }).toThrow(/ENOENT/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('moves a file written elsewhere over its target, and names temporary files beside it', async () => {
    const file = join(dir, 'a.csv');
    writeFileSync(file, 'old');
    const part = temporaryBeside(file);
    expect(part.startsWith(join(dir, '.a.csv.'))).toBe(true);
    expect(temporaryBeside(file)).not.toBe(part);
    writeFileSync(part, 'downloaded');
    await replaceFile(part, file);
    expect(readFileSync(file, 'utf8')).toBe('downloaded');
    expect(readdirSync(dir)).toEqual(['a.csv']);
  });
});
