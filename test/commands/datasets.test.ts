/** search, list, history and delete run in-process against a hub in this process. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { RevisionEntry, SearchResult } from '../../packages/cli/src/client/api.js';
import { runCli } from '../helpers/cli.js';
import { NO_COLORS } from '../../packages/core/src/text/palette.js';
import { renderDatasets, renderRevisions } from '../../packages/cli/src/output/datasets.js';
import { renderInfo } from '../../packages/cli/src/output/info.js';
import { browserLogin, CITIES_DIR, publish, waitForState, withHub } from '../hub/helpers.js';

function client(api: string, token?: string) {
  const config = mkdtempSync(join(tmpdir(), 'data-datasets-'));
  return (args: string[], tty = false) =>
    runCli(args, {
      tty,
      env: { DATA_API: api, DATA_CONFIG_DIR: config, ...(token ? { DATA_TOKEN: token } : {}) },
      fetch: globalThis.fetch,
    });
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
      expect(history.out).toMatch(/^1\tsucceeded\tpublished\t\S+ \S+\tyes\t(first revision)?$/m);
      expect((await anyone(['history', 'ada/hidden'])).code).toBe(2);
      expect((await asAda(['delete', 'ada/hidden'])).code).toBe(2);
      expect((await asAda(['delete', 'ada/hidden', '--yes'])).out).toBe('deleted ada/hidden\n');
      expect((await asAda(['list'])).out).not.toContain('hidden');
    });
  });
});

describe('history and delete of an argument that is no owner/dataset', () => {
  it('say so before reading the hub address, which may be wrong too', async () => {
    for (const command of [
      ['history', 'bad'],
      ['delete', 'bad', '--yes'],
    ]) {
      const { code, out, err } = await runCli(command, {
        env: { DATA_API: 'notaurl', DATA_TOKEN: 'a-token' },
      });
      expect({ code, out }, err).toEqual({ code: 2, out: '' });
      expect(err).toContain('"bad" is not owner/dataset');
    }
  });
});

/** A table as a terminal shows it: its headings (split where two spaces are), and its rows. */
function headed(table: string): { headings: string[]; rows: number } {
  const [head = '', ...rows] = stripVTControlCharacters(table).trimEnd().split('\n');
  return { headings: head.trim().split(/ {2,}/), rows: rows.length };
}

describe('the tables of search, list and history', () => {
  it('head every column, as many headings as a row has cells', () => {
    const revisions = [
      {
        revision: 2,
        state: 'SUCCEEDED',
        findability: 'published',
        created: '2026-11-02T10:00:00.000Z',
        published: true,
        changes: null,
      },
      {
        revision: 1,
        state: 'FAILED',
        findability: 'unlisted',
        created: '2026-11-01T10:00:00.000Z',
        published: false,
        changes: null,
      },
    ] as unknown as RevisionEntry[];
    const found = [
      { name: 'cities', title: 'Cities', datahub: { owner: 'ada', findability: 'unlisted' } },
    ] as unknown as SearchResult[];
    const tables: [tty: string, plain: string][] = [
      [renderRevisions(revisions, true, NO_COLORS), renderRevisions(revisions, false, NO_COLORS)],
      [renderDatasets(found, 1, true, NO_COLORS), renderDatasets(found, 1, false, NO_COLORS)],
    ];
    for (const [tty, plain] of tables) {
      const cells = plain.split('\n')[0]?.split('\t') ?? [];
      const { headings } = headed(tty);
      expect(headings.every((heading) => heading !== '')).toBe(true);
      expect(headings).toHaveLength(cells.length);
    }
    expect(headed(renderRevisions(revisions, true, NO_COLORS)).headings).toEqual([
      'revision',
      'state',
      'findability',
      'created',
      'published',
      'changes',
    ]);
    expect(renderRevisions(revisions, false, NO_COLORS).split('\n')[0]).toBe(
      '2\tsucceeded\tpublished\t2026-11-02 10:00:00Z\tyes\t',
    );
  });
});

describe("data info's preview", () => {
  it('heads a column whose label is blank, or that the header row does not reach, by its field name', () => {
    const info = renderInfo(
      {
        name: 'odd',
        title: undefined,
        description: undefined,
        licenses: [],
        version: undefined,
        resources: [
          {
            name: 'odd',
            format: 'csv',
            source: 'odd.csv',
            bytes: 20,
            rows: 2,
            fields: undefined,
            preview: [
              ['a', '', 'c'],
              ['1', '2', '3', '4'],
              ['5', '6', '7'],
            ],
          },
        ],
      },
      'odd',
      NO_COLORS,
    );
    const table = info
      .split('\n')
      .filter((line) => line.startsWith('  ') && !line.startsWith('   '));
    expect(table[0]?.trim().split(/ {2,}/)).toEqual(['a', 'field2', 'c', 'field4']);
  });
});
