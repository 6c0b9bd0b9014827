import { describe, expect, it } from 'vitest';
import { isoDate } from '../../packages/core/src/validator/iso-date.js';

describe('isoDate', () => {
  it('writes every day from the year 1 to 9999 as Date.prototype.toISOString does', () => {
    // Date.UTC reads the years 0 to 99 as 1900 to 1999: the year 1 is set on its own.
    const start = new Date(0);
    start.setUTCFullYear(1, 0, 1);
    const from = Math.floor(start.getTime() / 86_400_000);
    const to = Math.floor(Date.UTC(9999, 11, 31) / 86_400_000);
    let wrong = 0;
    for (let day = from; day <= to; day++) {
      const ms = day * 86_400_000;
      if (isoDate(ms) !== new Date(ms).toISOString().slice(0, 10)) wrong++;
    }
    expect(wrong).toBe(0);
    expect(isoDate(Date.UTC(2024, 1, 29))).toBe('2024-02-29');
    expect(isoDate(Date.UTC(1900, 2, 1))).toBe('1900-03-01');
    expect(isoDate(-86_400_000)).toBe('1969-12-31');
  });

  it('falls back to the extended form past the year 9999', () => {
    expect(isoDate(Date.UTC(10_000, 0, 1))).toBe('+010000-01-01');
  });
});
