/**
 * Downloads with wget as people run them: a broken download finished, a revision mirrored by
 * its descriptor and found valid. Each conditional and range header, wget -N and curl -OJ
 * have tests of their own beside the hub's (test/hub/http-semantics.test.ts).
 */
import { readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserLogin, runData, tempDir, withHub } from '../hub/helpers.js';
import { people, published, runProgram, runs, writePackage, type Table } from './helpers.js';

// Each run without the user's own settings (--no-config).
const WGET = '/usr/bin/wget';

function towns(count: number): Table {
  return {
    name: 'towns',
    fields: [
      { name: 'code', type: 'string' },
      { name: 'population', type: 'integer' },
    ],
    rows: Array.from({ length: count }, (_, i) => [`T${String(i)}`, String(5000 + i)]),
  };
}

describe.skipIf(!runs(WGET))('wget on a hub', () => {
  it('wget -c finishes a download that broke off, by a range', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const dir = writePackage('archive', [towns(3000)]);
      await published(url, jwt, dir);
      const whole = readFileSync(join(dir, 'data', 'towns.csv'));
      const work = tempDir();
      // What a download cut at its middle leaves.
      writeFileSync(join(work, 'towns.csv'), whole.subarray(0, whole.length >> 1));
      const run = await runProgram(
        WGET,
        ['--no-config', '-c', '-S', `${url}/ada/archive/v/1/data/towns.csv`],
        {
          cwd: work,
        },
      );
      expect(run.code, run.err).toBe(0);
      expect(run.err).toMatch(/HTTP\/1\.1 206/);
      expect(readFileSync(join(work, 'towns.csv'))).toEqual(whole);
      // A copy (made by this first read), broken off too.
      const copy = await runProgram(
        WGET,
        ['--no-config', '-S', `${url}/ada/archive/v/1/r/towns.json`],
        {
          cwd: work,
        },
      );
      expect(copy.code, copy.err).toBe(0);
      const json = readFileSync(join(work, 'towns.json'));
      truncateSync(join(work, 'towns.json'), 1000);
      const resumed = await runProgram(
        WGET,
        ['--no-config', '-c', `${url}/ada/archive/v/1/r/towns.json`],
        {
          cwd: work,
        },
      );
      expect(resumed.code, resumed.err).toBe(0);
      expect(readFileSync(join(work, 'towns.json'))).toEqual(json);
    });
  });

  it('a revision mirrored with wget by its descriptor is the package published, and valid', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const first = writePackage('mirror', [people(1), towns(50)]);
      await published(url, jwt, first);
      await published(url, jwt, writePackage('mirror', [people(2), towns(60)]));
      const work = tempDir();
      const descriptorUrl = `${url}/ada/mirror/v/1/datapackage.json`;
      // The descriptor, then every path it lists, each where the descriptor puts it.
      const options = ['--no-config', '-q', '-x', '-nH', '--cut-dirs=4'];
      const got = await runProgram(WGET, [...options, descriptorUrl], { cwd: work });
      expect(got.code, got.err).toBe(0);
      const descriptor = JSON.parse(readFileSync(join(work, 'datapackage.json'), 'utf8')) as {
        resources: { path: string }[];
      };
      writeFileSync(
        join(work, 'paths.txt'),
        descriptor.resources.map((resource) => `${resource.path}\n`).join(''),
      );
      const files = await runProgram(
        WGET,
        [...options, `--base=${descriptorUrl}`, '-i', 'paths.txt'],
        { cwd: work },
      );
      expect(files.code, files.err).toBe(0);
      for (const name of ['people.csv', 'towns.csv'])
        expect(readFileSync(join(work, 'data', name))).toEqual(
          readFileSync(join(first, 'data', name)),
        );
      const validated = await runData(['validate', join(work, 'datapackage.json')]);
      expect(validated.err).not.toMatch(/^error/m);
      expect(validated.code).toBe(0);
    });
  });
});
