import { describe, expect, it } from 'vitest';
import { BigMap, BigSet, PART_ENTRIES } from '../../src/validator/table/big-map.js';

describe('maps and sets past the 2^24 entries of one', () => {
  it('keep every entry across parts, first value kept', () => {
    const map = new BigMap<string, number>(3);
    for (let index = 0; index < 10; index++) map.add(`k${String(index)}`, index);
    expect(map.size).toBe(10);
    for (let index = 0; index < 10; index++) expect(map.get(`k${String(index)}`)).toBe(index);
    expect(map.get('k10')).toBeUndefined();
    const set = new BigSet<string>(3);
    for (const key of ['a', 'b', 'c', 'd', 'a', 'e', 'd']) set.add(key);
    expect(set.size).toBe(5);
    expect(['a', 'b', 'c', 'd', 'e', 'f'].map((key) => set.has(key))).toEqual([
      true,
      true,
      true,
      true,
      true,
      false,
    ]);
  });

  it('use parts just under the limit of a JavaScript Map', () => {
    expect(PART_ENTRIES).toBe(16_777_215);
  });
});
