import { describe, expect, it } from 'vitest';
import {
  NumberRowTable,
  StringKeySet,
  StringRowTable,
} from '../../src/validator/table/key-tables.js';
import { KeyTracker } from '../../src/validator/table/keys-check.js';

describe('key tables', () => {
  it('give the first row of every repeated number, across many growths', () => {
    const table = new NumberRowTable();
    const count = 300_000;
    // Sequential ids, strided ids, negatives and fractions.
    const keys = Array.from({ length: count }, (_, index) =>
      index % 4 === 0
        ? index
        : index % 4 === 1
          ? 1e9 + index * 1024
          : index % 4 === 2
            ? -index
            : index + 0.5,
    );
    keys.forEach((key, row) => expect(table.firstRowOrAdd(key, row + 1)).toBeUndefined());
    expect(table.size).toBe(count);
    keys.forEach((key, row) => expect(table.firstRowOrAdd(key, 0)).toBe(row + 1));
    expect(table.firstRowOrAdd(Number.MAX_SAFE_INTEGER, 7)).toBeUndefined();
    expect(table.firstRowOrAdd(-0, 9)).toBe(1); // -0 is 0, as in a Map
  });

  it('keep every key when 32-bit keys give way to wider ones in a full table', () => {
    const table = new NumberRowTable();
    for (let key = 0; key < 100_000; key++) table.firstRowOrAdd(key, key + 1);
    for (const wide of [2 ** 31, -(2 ** 31), 2 ** 53 - 1, 0.5])
      expect(table.firstRowOrAdd(wide, 7)).toBeUndefined();
    for (let key = 0; key < 100_000; key++) expect(table.firstRowOrAdd(key, 0)).toBe(key + 1);
    expect(table.firstRowOrAdd(-(2 ** 31), 0)).toBe(7);
    expect(table.size).toBe(100_004);
  });

  it('give the first row of every repeated string, multi-byte and long ones included', () => {
    const table = new StringRowTable();
    const keys = [
      '',
      'a',
      'A',
      'é',
      'e\u0301',
      '😀 emoji',
      'x'.repeat(17 * 1024 * 1024), // longer than a page of key bytes
      ...Array.from({ length: 200_000 }, (_, index) => `key ${String(index)} ñ`),
    ];
    keys.forEach((key, row) => expect(table.firstRowOrAdd(key, row + 1)).toBeUndefined());
    expect(table.size).toBe(keys.length);
    keys.forEach((key, row) => expect(table.firstRowOrAdd(key, 0)).toBe(row + 1));
    expect(table.find('key 200000 ñ')).toBeUndefined();
    expect(table.find('x'.repeat(17 * 1024 * 1024 - 1))).toBeUndefined();
    expect(table.size).toBe(keys.length);
  });

  it('answer set lookups without adding what they look for', () => {
    const set = new StringKeySet();
    for (const key of ['a', 'b', 'a']) set.add(key);
    expect(['a', 'b', 'c'].map((key) => set.has(key))).toEqual([true, true, false]);
    expect(set.size).toBe(2);
  });

  it('keep values of different types apart in one key: 1 and "1", true and "b1"', () => {
    const tracker = new KeyTracker([0], true);
    const rows = [1, '1', true, 'b1', 1n, 'n1', null, 1, '1', true, 1n];
    expect(rows.map((value, index) => tracker.check([value], index + 1))).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      null,
      1,
      2,
      3,
      5,
    ]);
  });
});
