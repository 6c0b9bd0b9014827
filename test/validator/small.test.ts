import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  isSmallLocal,
  maySplit,
  SMALL_INPUT_BYTES,
  validationPlace,
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

describe('where the CLI validates an input', () => {
  const table = (name: string, bytes: number) => {
    writeFileSync(join(dir, name), '');
    truncateSync(join(dir, name), bytes);
  };
  const describeFiles = (resources: unknown[]) =>
    writeFileSync(join(dir, 'datapackage.json'), JSON.stringify({ name: 'p', resources }));

  it('here, beside a range worker, when a local text file is large enough to split', async () => {
    table('large.csv', SPLIT_MIN_BYTES);
    describeFiles([{ name: 'a', path: 'large.csv', schema: { fields: [{ name: 'x' }] } }]);
    expect(await validationPlace(dir)).toBe('thread-split');
    expect(await validationPlace(join(dir, 'large.csv'))).toBe('thread-split');
    expect(await validationPlace({ descriptor: { resources: [{ path: 'large.csv' }] }, dir })).toBe(
      'thread-split',
    );
  });

  it('here, alone, when it is small, or large but too small to split', async () => {
    table('small.csv', 100);
    table('medium.csv', SMALL_INPUT_BYTES);
    expect(await validationPlace(join(dir, 'small.csv'))).toBe('thread');
    expect(await validationPlace(join(dir, 'medium.csv'))).toBe('thread');
    describeFiles([{ name: 'a', path: ['small.csv', 'medium.csv'] }]);
    expect(await validationPlace(dir)).toBe('thread');
  });

  it('in a worker when a large input has a pattern, a workbook or Parquet, or must be fetched', async () => {
    table('large.csv', SPLIT_MIN_BYTES);
    table('large.parquet', SPLIT_MIN_BYTES);
    table('large.bin', SPLIT_MIN_BYTES);
    const fields = [{ name: 'x', constraints: { pattern: 'a' } }];
    describeFiles([{ name: 'a', path: 'large.csv', schema: { fields } }]);
    expect(await validationPlace(dir)).toBe('worker');
    expect(await validationPlace(join(dir, 'large.parquet'))).toBe('worker');
    describeFiles([{ name: 'a', path: 'large.parquet' }]);
    expect(await validationPlace(dir)).toBe('worker');
    describeFiles([{ name: 'a', path: 'large.bin', format: 'parquet' }]);
    expect(await validationPlace(dir)).toBe('worker');
    describeFiles([{ name: 'a', path: 'large.bin', format: 'ods' }]);
    expect(await validationPlace(dir)).toBe('worker');
    describeFiles([{ name: 'a', path: 'large.csv', schema: 'https://example.org/schema.json' }]);
    expect(await validationPlace(dir)).toBe('worker');
    expect(await validationPlace('https://example.org/large.csv')).toBe('worker');
    // A small Parquet file stays here, as before.
    table('small.parquet', 100);
    expect(await validationPlace(join(dir, 'small.parquet'))).toBe('thread');
  });
});
