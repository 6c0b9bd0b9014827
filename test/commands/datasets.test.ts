/** search, list, history and delete run in-process against a hub in this process. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { run } from '../../src/cli.js';
import { memoryIO } from '../../src/output/io.js';
import { browserLogin, CITIES_DIR, publish, waitForState, withHub } from '../hub/helpers.js';

function client(api: string, token?: string) {
  const config = mkdtempSync(join(tmpdir(), 'data-datasets-'));
  return async (args: string[], tty = false) => {
    const io = memoryIO({
      tty,
      env: {
        DATA_API: api,
        DATA_CONFIG_DIR: config,
        DATA_KEYCHAIN: '0',
        ...(token ? { DATA_TOKEN: token } : {}),
      },
    });
    const code = await run(args, io, { fetch: globalThis.fetch });
    return { code, out: io.out(), err: io.err() };
  };
}

describe('datasets on the hub', () => {
  it('finds, lists, shows the history of and deletes datasets', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      await waitForState(url, (await publish(url, ada, CITIES_DIR)).flowId);
      await waitForState(
        url,
        (await publish(url, ada, CITIES_DIR, { dataset: 'hidden', findability: 'private' })).flowId,
        ada,
      );
      const asAda = client(url, ada);
      const anyone = client(url);
      expect((await anyone(['search', 'cities'])).out).toBe(
        'ada/world-cities\tWorld cities and their countries\t\n',
      );
      const table = await asAda(['search'], true);
      expect(stripVTControlCharacters(table.out)).toMatch(/^dataset {11}title/m);
      expect(table.out).toContain('ada/hidden');
      const listed = JSON.parse((await asAda(['--json', 'list'])).out) as {
        datasets: { name: string; findability: string }[];
      };
      expect(
        listed.datasets.map((dataset) => `${dataset.name}:${dataset.findability}`).sort(),
      ).toEqual(['hidden:private', 'world-cities:published']);
      const history = await anyone(['history', 'ada/world-cities']);
      // Its changes once summed up: a first revision is one.
      expect(history.out).toMatch(
        /^1\tsucceeded\tpublished\t\S+ \S+\tpublished\t(first revision)?$/m,
      );
      expect((await anyone(['history', 'ada/hidden'])).code).toBe(2);
      expect((await asAda(['delete', 'ada/hidden'])).code).toBe(2);
      expect((await asAda(['delete', 'ada/hidden', '--yes'])).out).toBe('deleted ada/hidden\n');
      expect((await asAda(['list'])).out).not.toContain('hidden');
    });
  });
});
