import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { folder } from '../helpers/fixtures.js';
import { browserLogin, withHub } from './helpers.js';

function data(args: string[], env: Record<string, string>) {
  return runCli(args, { env: { NO_COLOR: '1', ...env } });
}

/** A table whose first 5,000 rows suggest integers that row 5,001 contradicts. */
function lateContradiction(): string {
  const rows = ['id,amount,code'];
  for (let id = 1; id <= 5000; id++) rows.push(`${String(id)},${String(id * 3)},${String(id)}`);
  rows.push('5001,2.5,n/a');
  const dir = folder({});
  const file = join(dir, 'amounts.csv');
  writeFileSync(file, `${rows.join('\n')}\n`);
  return file;
}

describe('data publish of a single data file', () => {
  it('publishes a schema that holds for the whole file, loosened as data init loosens it', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const env = { DATA_API: url, DATA_TOKEN: jwt };
      const published = await data(['publish', lateContradiction()], env);
      expect(published.err).not.toMatch(/invalid/);
      expect(published.code).toBe(0);
      const descriptor = (await (await fetch(`${url}/ada/amounts/datapackage.json`)).json()) as {
        resources: { name: string; schema: { fields: { name: string; type: string }[] } }[];
      };
      const fields = descriptor.resources.find((resource) => resource.name === 'amounts')?.schema
        .fields;
      expect(fields?.map(({ name, type }) => [name, type])).toEqual([
        ['id', 'integer'],
        ['amount', 'number'],
        ['code', 'string'],
      ]);
    });
  });
});
