/**
 * How the CSV copy writes a table's cells, by the schema its descriptor declares: the typed
 * one of a revision published now (each value in its type's one form), or the table's own of
 * a revision published before copies were typed (cells as that schema reads them), so that
 * a copy made on demand for an old revision still reads as its old descriptor says.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { validateAndDeriveIsolated } from '../../packages/core/src/validator/isolated.js';
import type { SchemaDescriptor } from '../../packages/core/src/validator/descriptor/types.js';

const dir = mkdtempSync(join(tmpdir(), 'data-copy-writers-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SCHEMA: SchemaDescriptor = {
  fields: [
    { name: 'day', type: 'date', format: '%d/%m/%Y' },
    { name: 'seen', type: 'datetime' },
    { name: 'rain', type: 'number', decimalChar: ',' },
    { name: 'ok', type: 'boolean', trueValues: ['ja'], falseValues: ['nein'] },
  ],
  missingValues: ['', 'n/a'],
};

beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'rain.csv'),
    'day;seen;rain;ok\n03/01/2024;2024-01-03T10:30:00+02:00;1,5;ja\nn/a;2024-01-03T08:30:00;n/a;nein\n',
  );
});

async function csvCopy(csvSchema: SchemaDescriptor | undefined): Promise<string> {
  const out = join(dir, `out-${String(Math.random()).slice(2)}`);
  mkdirSync(out);
  const descriptor = {
    resources: [{ name: 'rain', path: 'rain.csv', dialect: { delimiter: ';' }, schema: SCHEMA }],
  };
  const { report, derived } = await validateAndDeriveIsolated(
    { descriptor, dir },
    { silenceMs: 30_000 },
    { to: out, kinds: ['csv'], ...(csvSchema ? { csvSchema } : {}) },
  );
  expect(report.valid).toBe(true);
  return readFileSync(String(derived[0]?.csv), 'utf8');
}

describe('the CSV copy', () => {
  it('writes each value in its type’s one form under the typed schema', async () => {
    expect(await csvCopy(undefined)).toBe(
      'day,seen,rain,ok\n2024-01-03,2024-01-03T08:30:00Z,1.5,true\n,2024-01-03T08:30:00Z,,false\n',
    );
  });

  it('writes cells as the schema an older descriptor declares reads them, date-times in UTC', async () => {
    expect(await csvCopy(SCHEMA)).toBe(
      'day,seen,rain,ok\n03/01/2024,2024-01-03T08:30:00Z,"1,5",ja\n,2024-01-03T08:30:00Z,,nein\n',
    );
  });
});
