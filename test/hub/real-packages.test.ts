import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { parse } from 'yaml';
import { browserLogin, runData, tempDir, withHub } from './helpers.js';

const REAL = join(import.meta.dirname, '../fixtures/real');
const VALID = ['country-codes', 'gdp', 'glacier-mass-balance', 'global-temp'];

it('publishes the valid real packages and gets every data file back byte for byte', async () => {
  const work = tempDir();
  try {
    await withHub({}, async ({ url }) => {
      const env = { DATA_API: url, DATA_TOKEN: await browserLogin(url) };
      for (const name of VALID) {
        const published = await runData(['publish', join(REAL, name)], { env });
        expect(published.err).not.toMatch(/^(error|warning)/m);
        expect(published.code).toBe(0);
        const file = readdirSync(join(REAL, name)).find((each) => each.startsWith('datapackage'));
        const { name: dataset } = parse(readFileSync(join(REAL, name, file ?? ''), 'utf8')) as {
          name: string;
        };
        const got = await runData(['get', `ada/${dataset}`, '--out', name], {
          env,
          cwd: work,
        });
        expect(got.code).toBe(0);
        for (const file of readdirSync(join(REAL, name, 'data')))
          expect(
            readFileSync(join(work, name, 'data', file)).equals(
              readFileSync(join(REAL, name, 'data', file)),
            ),
          ).toBe(true);
      }
    });
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});
