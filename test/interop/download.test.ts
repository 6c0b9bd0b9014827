/**
 * Downloads with curl and wget as people run them: a file saved under its resource's name, a
 * file kept when unchanged, a broken download finished, a revision mirrored by its descriptor
 * and found valid. Each conditional and range header has tests of its own beside the hub.
 */
import { readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserLogin, runData, tempDir, withHub } from '../hub/helpers.js';
import { people, published, runProgram, runs, writePackage, type Table } from './helpers.js';

// Each run without the user's own settings: curl's -q (first), wget's --no-config.
const CURL = '/usr/bin/curl';
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

describe.skipIf(!runs(CURL))('curl on a hub', () => {
  it("curl -OJ saves a resource read by its index under the resource's file name", async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const dir = writePackage('register', [people(1), towns(10)]);
      await published(url, jwt, dir);
      const work = tempDir();
      const run = await runProgram(CURL, ['-q', '-sSf', '-OJ', `${url}/ada/register/r/1.csv`], {
        cwd: work,
      });
      expect(run.err).toBe('');
      expect(run.code).toBe(0);
      expect(readFileSync(join(work, 'towns.csv'))).toEqual(
        readFileSync(join(dir, 'data', 'towns.csv')),
      );
      // A copy is named as the descriptor names its file (_derived/towns_json.json).
      const copy = await runProgram(CURL, ['-q', '-sSf', '-OJ', `${url}/ada/register/r/1.json`], {
        cwd: work,
      });
      expect(copy.code, copy.err).toBe(0);
      expect(JSON.parse(readFileSync(join(work, 'towns_json.json'), 'utf8'))).toHaveLength(10);
    });
  });
});

describe.skipIf(!runs(WGET))('wget on a hub', () => {
  it('wget -N keeps a file that has not changed', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await published(url, jwt, writePackage('ledger', [people(1)]));
      const work = tempDir();
      const address = `${url}/ada/ledger/v/1/data/people.csv`;
      const first = await runProgram(WGET, ['--no-config', '-N', '-S', address], { cwd: work });
      expect(first.code, first.err).toBe(0);
      const saved = join(work, 'people.csv');
      const stamp = statSync(saved).mtimeMs;
      // The file takes the hub's Last-Modified, which the second run sends as If-Modified-Since.
      const second = await runProgram(WGET, ['--no-config', '-N', '-S', address], { cwd: work });
      expect(second.code, second.err).toBe(0);
      expect(second.err).toMatch(/HTTP\/1\.1 304/);
      expect(second.err).not.toMatch(/saved \[/);
      expect(statSync(saved).mtimeMs).toBe(stamp);
    });
  });

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
      expect(validated.err).toBe('');
      expect(validated.code).toBe(0);
    });
  });
});
