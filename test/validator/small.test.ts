import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isSmallLocal,
  maySplit,
  SMALL_INPUT_BYTES,
} from '../../packages/core/src/validator/small.js';
import { SPLIT_MIN_BYTES } from '../../packages/core/src/validator/table/ranges.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'data-small-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('which inputs are validated in the calling thread', () => {
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

  it('not a workbook, however small: its bytes say nothing of how many cells it spells', async () => {
    writeFileSync(join(dir, 'a.ods'), 'PK');
    writeFileSync(join(dir, 'a.bin'), 'PK');
    describeFiles([{ name: 'a', path: 'a.ods' }]);
    expect(await isSmallLocal(dir)).toBe(false);
    expect(await isSmallLocal(join(dir, 'a.ods'))).toBe(false);
    describeFiles([{ name: 'a', path: 'a.bin', format: 'xlsx' }]);
    expect(await isSmallLocal(dir)).toBe(false);
    expect(await isSmallLocal({ descriptor: { resources: [{ path: 'a.xls' }] }, dir })).toBe(false);
  });

  it('not a package with much pattern matching, its patterns inline or in a schema file', async () => {
    // 100 KB of cells times a pattern of 6 characters is past what the calling thread takes.
    writeFileSync(join(dir, 'a.csv'), '');
    truncateSync(join(dir, 'a.csv'), 100_000);
    const fields = [{ name: 'x', constraints: { pattern: '[0-9]+' } }];
    describeFiles([{ name: 'a', path: 'a.csv', schema: { fields } }]);
    expect(await isSmallLocal(dir)).toBe(false);
    expect(
      await isSmallLocal({
        descriptor: { resources: [{ path: 'a.csv', schema: { fields } }] },
        dir,
      }),
    ).toBe(false);
    writeFileSync(join(dir, 'schema.json'), JSON.stringify({ fields }));
    describeFiles([{ name: 'a', path: 'a.csv', schema: 'schema.json' }]);
    expect(await isSmallLocal(dir)).toBe(false);
    writeFileSync(
      join(dir, 'schema.yaml'),
      'fields:\n  - name: x\n    constraints:\n      pattern: "[0-9]+"\n',
    );
    describeFiles([{ name: 'a', path: 'a.csv', schema: 'schema.yaml' }]);
    expect(await isSmallLocal(dir)).toBe(false);
    writeFileSync(join(dir, 'schema.json'), JSON.stringify({ fields: [{ name: 'x' }] }));
    describeFiles([{ name: 'a', path: 'a.csv', schema: 'schema.json' }]);
    expect(await isSmallLocal(dir)).toBe(true);
  });

  it('a small package with a short pattern, as examples/cities', async () => {
    expect(await isSmallLocal(join(import.meta.dirname, '../../examples/cities'))).toBe(true);
    writeFileSync(join(dir, 'a.csv'), '');
    truncateSync(join(dir, 'a.csv'), 10_000);
    describeFiles([
      {
        name: 'a',
        path: 'a.csv',
        schema: { fields: [{ name: 'x', constraints: { pattern: '[0-9]+' } }] },
      },
    ]);
    expect(await isSmallLocal(dir)).toBe(true);
    // The same bytes with a pattern 100 times as long are not.
    const long = '[0-9]'.repeat(120);
    describeFiles([
      {
        name: 'a',
        path: 'a.csv',
        schema: { fields: [{ name: 'x', constraints: { pattern: long } }] },
      },
    ]);
    expect(await isSmallLocal(dir)).toBe(false);
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

describe('which inputs get a second worker beside the first, for a table split in two', () => {
  const table = (name: string, bytes: number) => {
    writeFileSync(join(dir, name), '');
    truncateSync(join(dir, name), bytes);
  };

  it('those with a local file at the threshold or above', async () => {
    table('small.csv', SPLIT_MIN_BYTES - 1);
    table('large.csv', SPLIT_MIN_BYTES);
    writeFileSync(
      join(dir, 'datapackage.json'),
      JSON.stringify({ resources: [{ path: 'small.csv' }, { path: 'large.csv' }] }),
    );
    expect(await maySplit(dir, undefined)).toBe(true);
    expect(await maySplit(join(dir, 'large.csv'), undefined)).toBe(true);
    expect(await maySplit(join(dir, 'small.csv'), undefined)).toBe(false);
    expect(await maySplit(join(dir, 'small.csv'), { minBytes: 1024 })).toBe(true);
    expect(
      await maySplit({ descriptor: { resources: [{ path: 'small.csv' }] }, dir }, undefined),
    ).toBe(false);
  });

  it('not one pass, nor a remote input; those that cannot be sized here, yes', async () => {
    table('large.csv', SPLIT_MIN_BYTES);
    expect(await maySplit(join(dir, 'large.csv'), false)).toBe(false);
    expect(await maySplit('https://example.org/datapackage.json', undefined)).toBe(false);
    writeFileSync(join(dir, 'datapackage.json'), '{ not json');
    expect(await maySplit(dir, undefined)).toBe(true);
  });
});
