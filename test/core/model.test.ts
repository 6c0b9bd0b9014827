import { describe, expect, it } from 'vitest';
import {
  DERIVED_COPIES,
  derivedName,
  derivedOf,
  isDerived,
  zipName,
} from '../../packages/core/src/model/derived.js';
import { formatOf, isTableFormat, noteFormat } from '../../packages/core/src/model/format.js';
import {
  isRemote,
  localPaths,
  resourcePaths,
  unsafeReason,
} from '../../packages/core/src/model/paths.js';
import { resourceName, resourcesOf } from '../../packages/core/src/model/resources.js';
import { FORMAT_TABLE } from './format-table.js';

describe('the format rule', () => {
  it.each(FORMAT_TABLE)('$what', ({ resource, format }) => {
    expect(formatOf(resource)).toBe(format);
  });

  it('takes what the bytes said over mediatype and name, never over a declared format', () => {
    const named = { path: 'book.csv', mediatype: 'text/csv' };
    noteFormat(named, 'xlsx');
    expect(formatOf(named)).toBe('xlsx');
    // A copy is another resource: the note is of the one whose bytes were read.
    expect(formatOf({ ...named })).toBe('csv');
    const declared = { path: 'book.csv', format: 'csv' };
    noteFormat(declared, 'xlsx');
    expect(formatOf(declared)).toBe('csv');
  });

  it('names the formats read as tables', () => {
    expect(['csv', 'tsv', 'txt', 'xlsx', 'xls', 'ods', 'parquet'].every(isTableFormat)).toBe(true);
    expect(isTableFormat('json')).toBe(false);
    expect(isTableFormat('CSV')).toBe(false);
  });
});

describe('the path rule', () => {
  it.each([
    ['data/a.csv', undefined],
    ['https://example.com/a.csv', undefined],
    ['/etc/passwd', 'absolute path'],
    ['../a.csv', 'parent directory in path'],
    ['data/../../a.csv', 'parent directory in path'],
    ['C:/a.csv', 'absolute or non-http URL'],
    ['file:///a.csv', 'absolute or non-http URL'],
    ['data\\a.csv', 'backslash in path'],
    ['~/a.csv', 'home directory path'],
    ['$HOME/a.csv', 'environment variable in path'],
    ['./a.csv', 'path starts with "./"'],
    ['.git/config', 'hidden folder in path'],
    ['', 'empty path'],
  ])('%j is %j', (path, reason) => {
    expect(unsafeReason(path, 2)).toBe(reason);
  });

  it('lets v1 read FTP and hidden folders below the top, not v2', () => {
    expect(unsafeReason('ftp://example.com/a.csv', 1)).toBe('unsupported URL scheme');
    expect(unsafeReason('ftp://example.com/a.csv', 2)).toBeUndefined();
    expect(unsafeReason('data/.cache/a.csv', 1)).toBeUndefined();
    expect(unsafeReason('data/.cache/a.csv', 2)).toBe('hidden folder in path');
  });

  it('tells remote paths and lists a resource’s paths', () => {
    expect(isRemote('HTTPS://example.com/a.csv')).toBe(true);
    expect(isRemote('ftp://example.com/a.csv')).toBe(false);
    const resource = { path: ['a.csv', 'https://example.com/b.csv', 3] };
    expect(resourcePaths(resource)).toEqual(['a.csv', 'https://example.com/b.csv']);
    expect(localPaths(resource)).toEqual(['a.csv']);
    const inline: { path?: unknown; data: unknown[] } = { data: [] };
    expect(resourcePaths(inline)).toEqual([]);
  });
});

describe('derived resources', () => {
  const resources = [
    { name: 'prices', path: 'prices.csv' },
    { name: 'prices_csv', datahub: { type: 'derived/csv', derivedFrom: ['prices'] } },
    { name: 'rates_csv', datahub: { type: 'derived/csv', derivedFrom: ['rates'] } },
    { name: 'shop_zip', datahub: { type: 'derived/zip' } },
  ];

  it('names each copy as the original service did', () => {
    expect(DERIVED_COPIES.map((copy) => derivedName('prices', copy))).toEqual([
      'prices_csv',
      'prices_json',
      'prices_csv_preview',
      'prices_parquet',
    ]);
    expect(zipName('shop')).toBe('shop_zip');
  });

  it('finds a copy by its type and source, and tells copies from originals', () => {
    expect(derivedOf(resources, 'derived/csv', 'rates')?.name).toBe('rates_csv');
    expect(derivedOf(resources, 'derived/zip')?.name).toBe('shop_zip');
    expect(derivedOf(resources, 'derived/json', 'prices')).toBeUndefined();
    expect(resources.filter((resource) => !isDerived(resource)).map((r) => r.name)).toEqual([
      'prices',
    ]);
  });
});

describe('resourcesOf', () => {
  it('keeps the resources that are objects, in order', () => {
    const descriptor = { resources: [{ name: 'a' }, null, 'b', [1], { name: 2 }] };
    expect(resourcesOf(descriptor).map(resourceName)).toEqual(['a', '2']);
    expect(resourcesOf({ resources: 'none' })).toEqual([]);
    expect(resourcesOf(null)).toEqual([]);
  });
});
