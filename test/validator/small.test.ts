import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSmallLocal, SMALL_INPUT_BYTES } from '../../src/validator/small.js';

describe('which inputs are validated in the calling thread', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'data-small-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const describeFiles = (resources: unknown[]) =>
    writeFileSync(join(dir, 'datapackage.json'), JSON.stringify({ name: 'p', resources }));

  it('a small local package or table, and a held descriptor of small files', async () => {
    writeFileSync(join(dir, 'a.csv'), 'x\n1\n');
    describeFiles([{ name: 'a', path: 'a.csv', schema: 'schema.json' }]);
    expect(await isSmallLocal(dir)).toBe(true);
    expect(await isSmallLocal(join(dir, 'datapackage.json'))).toBe(true);
    expect(await isSmallLocal(join(dir, 'a.csv'))).toBe(true);
    expect(await isSmallLocal({ descriptor: { resources: [{ path: 'a.csv' }] }, dir })).toBe(true);
  });

  it('not what must be fetched, nor files that together reach 8 MB, nor what cannot be read', async () => {
    writeFileSync(join(dir, 'a.csv'), '');
    writeFileSync(join(dir, 'b.csv'), '');
    truncateSync(join(dir, 'a.csv'), SMALL_INPUT_BYTES / 2);
    truncateSync(join(dir, 'b.csv'), SMALL_INPUT_BYTES / 2);
    describeFiles([{ name: 'a', path: ['a.csv', 'b.csv'] }]);
    expect(await isSmallLocal(dir)).toBe(false);
    expect(await isSmallLocal(join(dir, 'a.csv'))).toBe(true);
    describeFiles([{ name: 'a', path: 'https://example.org/a.csv' }]);
    expect(await isSmallLocal(dir)).toBe(false);
    describeFiles([{ name: 'a', path: 'a.csv', schema: 'https://example.org/schema.json' }]);
    expect(await isSmallLocal(dir)).toBe(false);
    expect(await isSmallLocal('https://example.org/datapackage.json')).toBe(false);
    writeFileSync(join(dir, 'datapackage.json'), '{ not json');
    expect(await isSmallLocal(dir)).toBe(false);
    expect(await isSmallLocal(join(dir, 'missing'))).toBe(false);
  });
});
