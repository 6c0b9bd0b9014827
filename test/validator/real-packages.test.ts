/**
 * Packages of the DataHub core datasets as they are published (test/fixtures/real, with
 * their sources and licences): valid with no warning, or invalid for the reason named here.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { check, summary } from '../helpers/fixtures.js';

const REAL = join(import.meta.dirname, '../fixtures/real');

describe('real packages', () => {
  it.each(['country-codes', 'gdp', 'glacier-mass-balance', 'global-temp'])(
    '%s is valid, with no warning',
    async (name) => {
      const report = await check(join(REAL, name));
      expect(summary(report)).toEqual([]);
      expect(report.valid).toBe(true);
      expect([...report.warnings, ...report.tasks.flatMap((task) => task.warnings)]).toEqual([]);
    },
  );

  it('co2-ppm is invalid: its monthly tables have rows longer than their header, and a blank line', async () => {
    const report = await check(join(REAL, 'co2-ppm'), { limitErrors: 0 });
    const types = new Set(summary(report).map((error) => error.split('@')[0]));
    expect([...types].sort()).toEqual(['blank-row', 'extra-cell']);
    expect(report.tasks.filter((task) => !task.valid).map((task) => task.name)).toEqual([
      'co2-mm-mlo',
      'co2-gr-mlo',
      'co2-mm-gl',
    ]);
  });

  it('gini-index is invalid: its schema names two fields of a table of four columns', async () => {
    const report = await check(join(REAL, 'gini-index'));
    const failed = report.tasks.filter((task) => !task.valid);
    expect(failed.map((task) => task.name)).toEqual(['gini-index']);
    expect(summary(report).slice(0, 4)).toEqual([
      'extra-label@3',
      'extra-label@4',
      'incorrect-label@1',
      'incorrect-label@2',
    ]);
  });
});
