import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { check, folder, tablePackage } from '../helpers/fixtures.js';
import {
  NumberRowTable,
  StringKeySet,
  StringRowTable,
} from '../../packages/core/src/validator/table/key-tables.js';
import { KeyTracker } from '../../packages/core/src/validator/table/keys-check.js';

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

  it('make room for the keys they are told to expect, within the bytes they may take', () => {
    const table = new NumberRowTable();
    table.firstRowOrAdd(7, 1);
    const small = table.bytes;
    table.reserve(90_000, small);
    expect(table.bytes).toBe(small);
    table.reserve(90_000, 4 * 1024 * 1024);
    // 16 segments of 8,192 slots of 8 bytes: 90,000 keys leave them at most 3/4 full.
    expect(table.bytes).toBe(16 * 8192 * 8);
    for (let key = 0; key < 90_000; key++) table.firstRowOrAdd(key, key + 2);
    expect(table.bytes).toBe(16 * 8192 * 8);
    expect(table.firstRowOrAdd(7, 0)).toBe(1);
    expect(table.firstRowOrAdd(89_999, 0)).toBe(90_001);
    expect(table.size).toBe(90_000);
  });

  it("find the keys two tables share, below, among and above the first one's keys", () => {
    const first = new NumberRowTable();
    for (let key = 1000; key < 2000; key += 2) first.firstRowOrAdd(key, key);
    first.firstRowOrAdd(-5.5, 1);
    const second = new NumberRowTable();
    const keys = [-7, -5.5, 0, 999, 1000, 1001, 1500, 1998, 1999, 2000, 1e12];
    keys.forEach((key, index) => second.firstRowOrAdd(key, index + 1));
    const shared: [number, number][] = [];
    first.shared(second.slots(), (row, firstRow) => shared.push([row, firstRow]));
    const expected = keys.flatMap((key, index): [number, number][] => {
      const row = first.find(key);
      return row === undefined ? [] : [[index + 1, row]];
    });
    expect(shared.sort((a, b) => a[0] - b[0])).toEqual(expected);
    expect(expected.map(([row]) => keys[row - 1])).toEqual([-5.5, 1000, 1500, 1998]);
  });

  it('find a key shared at the edge of two ranges of ids, and none in ranges apart', () => {
    const first = new NumberRowTable();
    for (let key = 1; key <= 1000; key++) first.firstRowOrAdd(key, key);
    const sharedWith = (from: number): [number, number][] => {
      const second = new NumberRowTable();
      for (let key = from; key <= 2000; key++) second.firstRowOrAdd(key, key - from + 1);
      const shared: [number, number][] = [];
      first.shared(second.slots(), (row, firstRow) => shared.push([row, firstRow]));
      return shared;
    };
    expect(sharedWith(1000)).toEqual([[1, 1000]]);
    expect(sharedWith(1001)).toEqual([]);
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

/** Files this process has open (Linux): spill files must all be closed after a run. */
function openFiles(): number {
  return readdirSync('/proc/self/fd').length;
}

/** Spill folders left in the temporary folder. */
function spillFolders(): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith('data-keys-'));
}

describe('keys past the memory budget', () => {
  /** 70,000 rows, past the 65,536 after which the budget is first checked. */
  function table(): string {
    const lines = ['id,code,batch,item'];
    for (let row = 1; row <= 70_000; row++) {
      // Repeats before the spill, across it (a key seen before, repeated after) and after it.
      const id = row === 10 ? 5 : row === 69_000 ? 100 : row === 69_990 ? 69_500 : row;
      const code = row === 20 ? 'c-3' : row === 69_100 ? 'c-200' : `c-${String(row)}`;
      const batch = row === 69_200 ? 1 : row % 100;
      const item = row === 69_200 ? 'i0' : `i${String(Math.floor(row / 100))}`;
      lines.push(`${String(id)},${code},${String(batch)},${item}`);
    }
    return `${lines.join('\n')}\n`;
  }

  const SCHEMA = {
    schema: {
      fields: [
        { name: 'id', type: 'integer', constraints: { unique: true } },
        { name: 'code', type: 'string', constraints: { unique: true } },
        { name: 'batch', type: 'integer' },
        { name: 'item', type: 'string' },
      ],
      primaryKey: ['id'],
      uniqueKeys: [['batch', 'item']],
    },
  };

  const described = (report: Awaited<ReturnType<typeof check>>): string[] =>
    (report.tasks[0]?.errors ?? [])
      .map((error) => `${error.type}@${String(error.rowNumber)}: ${error.note}`)
      .sort();

  it('spill to disk and report the same repeats as in memory, with a warning that says so', async () => {
    const dir = tablePackage(table(), SCHEMA);
    const inMemory = await check(dir);
    const onDisk = await check(dir, { keyMemory: 1 });
    // Row numbers count the header: data row 10 is row 11.
    expect(described(inMemory)).toEqual([
      'primary-key@11: the same as in row "6"',
      'primary-key@69001: the same as in row "101"',
      'primary-key@69991: the same as in row "69501"',
      'unique-error@11: the same as in row "6"',
      'unique-error@21: the same as in row "4"',
      'unique-error@69001: the same as in row "101"',
      'unique-error@69101: the same as in row "201"',
      'unique-error@69201: unique key "batch, item" is the same as in row "2"',
      'unique-error@69991: the same as in row "69501"',
    ]);
    expect(described(onDisk)).toEqual(described(inMemory));
    expect(inMemory.tasks[0]?.warnings).toEqual([]);
    expect(onDisk.tasks[0]?.warnings).toEqual([
      'keys outgrew 1 byte of memory and were checked on disk: repeated keys are reported after the other errors',
    ]);
  });

  it('close and remove their spill files, also when the error limit stops the read', async () => {
    const dir = tablePackage(table(), SCHEMA);
    const before = openFiles();
    const limited = await check(dir, { keyMemory: 1, limitErrors: 7 });
    expect(limited.tasks[0]?.errors).toHaveLength(7);
    expect(openFiles()).toBe(before);
    expect(spillFolders()).toEqual([]);
  });
});

describe('foreign keys into more keys than the budget holds', () => {
  it('are checked part by part on disk, with the same errors as in memory', async () => {
    const codes = ['code'];
    for (let row = 1; row <= 70_000; row++) codes.push(`c${String(row)}`);
    const dir = folder({
      'codes.csv': `${codes.join('\n')}\n`,
      'uses.csv': 'code,note\nc1,a\nc70000,b\nc70001,c\nnope,d\n,e\nc5,f\n',
      'datapackage.json': {
        name: 'fk',
        resources: [
          { name: 'codes', path: 'codes.csv' },
          {
            name: 'uses',
            path: 'uses.csv',
            schema: {
              fields: [{ name: 'code' }, { name: 'note' }],
              foreignKeys: [{ fields: 'code', reference: { resource: 'codes', fields: 'code' } }],
            },
          },
        ],
      },
    });
    const before = openFiles();
    {
      const notes = (report: Awaited<ReturnType<typeof check>>): string[] =>
        (report.tasks[1]?.errors ?? [])
          .map((error) => `${String(error.rowNumber)}: ${error.note}`)
          .sort();
      const inMemory = await check(dir);
      const onDisk = await check(dir, { keyMemory: 1 });
      expect(notes(inMemory)).toEqual([
        '4: for "code": values "c70001" not found in the lookup table "codes" as "code"',
        '5: for "code": values "nope" not found in the lookup table "codes" as "code"',
      ]);
      expect(notes(onDisk)).toEqual(notes(inMemory));
      expect(onDisk.tasks[1]?.warnings).toEqual([
        'the keys of "codes" outgrew 1 byte of memory and were checked on disk: foreign key errors are reported after the other errors',
      ]);
      expect(openFiles()).toBe(before);
      expect(spillFolders()).toEqual([]);
    }
  });
});
