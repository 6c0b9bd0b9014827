import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { folder, pricesPackage } from '../helpers/fixtures.js';
import { browserLogin, publish, waitForState, withHub } from '../hub/helpers.js';

const FIRST = 'id,price\n1,1.5\n';
const SECOND = 'id,price\n1,1.5\n2,7\n';

/** The route templates of the reads a hub answered, from its JSON log lines. */
function readRoutes(lines: string[]): string[] {
  return lines
    .map((line) => JSON.parse(line) as { msg?: string; route?: string; message?: string })
    .filter((entry) => entry.route !== undefined)
    .map((entry) => entry.route ?? '');
}

/** Runs `data` in process in `cwd` against the hub at `url`, with no keychain; returns its exit code and output. */
function dataIn(cwd: string, url: string) {
  return (args: string[]) =>
    runCli(args, { cwd, env: { DATA_API: url, DATA_CONFIG_DIR: join(cwd, '.config') } });
}

describe('data get owner/dataset@N', () => {
  it('writes revision N, every file read at its versioned address', async () => {
    const lines: string[] = [];
    await withHub({ logFormat: 'json', log: (line) => lines.push(line) }, async ({ url }) => {
      const jwt = await browserLogin(url);
      for (const csv of [FIRST, SECOND])
        expect(
          (await waitForState(url, (await publish(url, jwt, pricesPackage(csv))).flowId)).state,
        ).toBe('SUCCEEDED');
      const cwd = folder({});
      const data = dataIn(cwd, url);
      const read = (path: string) => readFileSync(join(cwd, path), 'utf8');
      lines.length = 0;
      const one = await data(['--json', 'get', 'ada/prices@1']);
      expect(one.err).toBe('');
      expect(one.code).toBe(0);
      expect(JSON.parse(one.out)).toMatchObject({ folder: join(cwd, 'ada/prices') });
      expect(read('ada/prices/data/prices.csv')).toBe(FIRST);
      const routes = readRoutes(lines);
      expect(routes).toContain('/:owner/:dataset/v/:revision/datapackage.json');
      expect(routes).toContain('/:owner/:dataset/v/:revision/:path');
      expect(
        routes.filter((route) => route.startsWith('/:owner') && !route.includes('/v/:revision/')),
      ).toEqual([]);
      // The same with --revision, with a URL of the revision, and with ?v= (moved by the hub).
      expect((await data(['get', 'ada/prices', '--revision', '1', '--out', 'flag'])).code).toBe(0);
      expect(read('flag/data/prices.csv')).toBe(FIRST);
      expect((await data(['get', `${url}/ada/prices/v/1`, '--out', 'url'])).code).toBe(0);
      expect(read('url/data/prices.csv')).toBe(FIRST);
      const query = await data(['get', `${url}/ada/prices/datapackage.json?v=1`, '--out', 'q']);
      expect(query.code).toBe(0);
      expect(read('q/data/prices.csv')).toBe(FIRST);
      // Read at /v/1/, where the hub's descriptor at ?v=1 would have put its files under v/1/.
      expect(readdirSync(join(cwd, 'q')).sort()).toEqual(['data', 'datapackage.json']);
      expect((await data(['get', 'ada/prices', '--out', 'latest'])).code).toBe(0);
      expect(read('latest/data/prices.csv')).toBe(SECOND);
      // One file, a copy and the zip of revision 1.
      expect((await data(['get', 'ada/prices@1/r/prices.csv', '--out', 'file'])).code).toBe(0);
      expect(read('file/prices.csv')).toBe(FIRST);
      expect((await data(['get', 'ada/prices@1', '--format', 'json', '--out', 'json'])).code).toBe(
        0,
      );
      expect(JSON.parse(read('json/data/prices.json'))).toHaveLength(1);
      expect((await data(['get', 'ada/prices@1', '--zip', '--out', 'zip'])).code).toBe(0);
      expect(readdirSync(join(cwd, 'zip'))).toEqual(['prices.zip']);
      // And its rows, and what changed since.
      expect((await data(['cat', 'ada/prices@1', 'prices'])).out).toBe(FIRST);
      const diff = await data(['--json', 'diff', 'ada/prices@1', 'ada/prices@2']);
      expect(diff.code).toBe(1);
      expect(
        (JSON.parse(diff.out) as { resources: { rows: object }[] }).resources[0]?.rows,
      ).toMatchObject({ added: 1, removed: 0, changed: 0 });
    });
  });

  it('reads revision N at ?v=N from a hub older than revision addresses', async () => {
    const descriptor = readFileSync(join(pricesPackage(FIRST), 'datapackage.json'), 'utf8');
    const seen: string[] = [];
    // What a hub before /v/<N>/ answered: ?v= on each address, 404 for /v/1/….
    const older = createServer((request, response) => {
      seen.push(request.url ?? '');
      const answers: Record<string, string> = {
        '/ada/prices/datapackage.json?v=1': descriptor,
        '/ada/prices/datapackage.json': descriptor,
        '/ada/prices/data/prices.csv?v=1': FIRST,
        '/ada/prices/data/prices.csv': SECOND,
        '/ada/prices/r/prices.csv?v=1': FIRST,
      };
      const body = answers[request.url ?? ''];
      response.writeHead(body === undefined ? 404 : 200).end(body ?? '{"error":"not found"}');
    });
    await new Promise<void>((resolve) => older.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${String((older.address() as AddressInfo).port)}`;
      const cwd = folder({});
      const data = dataIn(cwd, url);
      const one = await data(['get', 'ada/prices@1', '--out', 'one']);
      expect(one.err).toBe('saved data/prices.csv (15 B)\n');
      expect(one.code).toBe(0);
      expect(readFileSync(join(cwd, 'one/data/prices.csv'), 'utf8')).toBe(FIRST);
      expect(seen).toEqual([
        '/ada/prices/v/1/datapackage.json',
        '/ada/prices/datapackage.json?v=1',
        '/ada/prices/data/prices.csv?v=1',
      ]);
      // One file of revision 1, at r/<file>?v=1 once /v/1/r/<file> is 404.
      seen.length = 0;
      const file = await data(['get', 'ada/prices@1/r/prices.csv', '--out', 'file']);
      expect(file.code, file.err).toBe(0);
      expect(readFileSync(join(cwd, 'file/prices.csv'), 'utf8')).toBe(FIRST);
      expect(seen[0]).toBe('/ada/prices/v/1/r/prices.csv');
      expect(seen.slice(1).every((path) => path === '/ada/prices/r/prices.csv?v=1')).toBe(true);
      // data diff reads it there too.
      const diffed = await data(['--json', 'diff', 'ada/prices@1', 'ada/prices']);
      expect(diffed.code, diffed.err).toBe(1);
      expect(
        (JSON.parse(diffed.out) as { resources: { rows: object }[] }).resources[0]?.rows,
      ).toMatchObject({ added: 1, removed: 0, changed: 0 });
      const missing = await data(['get', 'ada/prices@7', '--out', 'seven']);
      expect(missing.code).toBe(2);
      expect(missing.err).toContain('there is no dataset ada/prices with a revision 7');
    } finally {
      await new Promise((resolve) => older.close(resolve));
    }
  });

  it('is a usage error for a revision there is not, or two revisions at once', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await waitForState(url, (await publish(url, jwt, pricesPackage(FIRST))).flowId);
      const cwd = folder({});
      const data = dataIn(cwd, url);
      const missing = await data(['get', 'ada/prices@7']);
      expect(missing.code).toBe(2);
      expect(missing.err).toContain('there is no dataset ada/prices with a revision 7');
      const both = await data(['get', 'ada/prices@1', '--revision', '2']);
      expect(both.code).toBe(2);
      expect(both.err).toContain('revision 2 asked for, but the address names revision 1');
      const zero = await data(['get', 'ada/prices@0']);
      expect(zero.code).toBe(2);
      expect(zero.err).toContain('a revision is a number from 1');
      expect(readdirSync(cwd).filter((name) => name !== '.config')).toEqual([]);
    });
  });
});
