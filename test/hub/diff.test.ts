import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { folder } from '../helpers/fixtures.js';
import { browserLogin, publish, waitForState, withHub } from './helpers.js';

const FIELDS = [
  { name: 'id', type: 'integer' },
  { name: 'price', type: 'number' },
];

/** The same table with a note field too. */
const NOTED = [...FIELDS, { name: 'note', type: 'string' }];

function prices(csv: string, fields: object[] = FIELDS): string {
  return folder({
    'prices.csv': csv,
    'datapackage.json': {
      name: 'prices',
      resources: [{ name: 'prices', path: 'prices.csv', schema: { fields, primaryKey: ['id'] } }],
    },
  });
}

function data(args: string[], env: Record<string, string>) {
  return runCli(args, { env: { NO_COLOR: '1', ...env } });
}

async function published(url: string, jwt: string, dir: string, findability = 'published') {
  const state = await waitForState(
    url,
    (await publish(url, jwt, dir, { findability })).flowId,
    jwt,
  );
  expect(state.state).toBe('SUCCEEDED');
}

describe('data diff against a hub', () => {
  it('diffs two revisions of a dataset, and a local folder against the published one', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const env = { DATA_API: url, DATA_TOKEN: jwt };
      await published(url, jwt, prices('id,price\n1,1.0\n2,2\n3,3\n'));
      await published(url, jwt, prices('id,price\n1,1\n2,2.5\n4,4\n'));
      const revisions = await data(['--json', 'diff', 'ada/prices@1', 'ada/prices'], env);
      expect(revisions.err).toBe('');
      expect(revisions.code).toBe(1);
      const diff = JSON.parse(revisions.out) as {
        a: string;
        b: string;
        resources: { rows: object; samples: { changed: object[] } }[];
      };
      expect([diff.a, diff.b]).toEqual(['ada/prices@1', 'ada/prices']);
      expect(diff.resources[0]?.rows).toEqual({
        added: 1,
        removed: 1,
        changed: 1,
        unchanged: 1,
        key: ['id'],
      });
      expect(diff.resources[0]?.samples.changed).toEqual([
        { key: { id: 2 }, cells: { price: { from: 2, to: 2.5 } } },
      ]);
      const same = await data(['diff', prices('id,price\n1,1\n2,2.5\n4,4\n'), 'ada/prices'], env);
      expect(same.out).toMatch(/^no changes$/m);
      expect(same.code).toBe(0);
    });
  });

  it('is an authentication error, with no rows shown, for a dataset the user may not read', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url);
      await published(url, ada, prices('id,price\n1,41\n'), 'private');
      const bob = await browserLogin(url, 'bob');
      const readers: Record<string, string>[] = [
        { DATA_API: url, DATA_TOKEN: bob },
        { DATA_API: url },
      ];
      for (const env of readers) {
        const denied = await data(['diff', prices('id,price\n1,1\n'), 'ada/prices'], env);
        expect(denied.code).toBe(4);
        expect(denied.out).toBe('');
        expect(denied.err).toMatch(/no dataset ada\/prices that you may read/);
      }
      // Its owner reads it; a revision that does not exist is refused the same way.
      const own = await data(['diff', prices('id,price\n1,41\n'), 'ada/prices'], {
        DATA_API: url,
        DATA_TOKEN: ada,
      });
      expect(own.code).toBe(0);
      const missing = await data(['diff', 'ada/prices@7', 'ada/prices'], {
        DATA_API: url,
        DATA_TOKEN: ada,
      });
      expect(missing.code).toBe(4);
    });
  });

  it('publish --dry-run validates, shows the diff against the published revision and uploads nothing', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const env = { DATA_API: url, DATA_TOKEN: jwt };
      const first = prices('id,price\n1,1\n2,2\n');
      const fresh = await data(['publish', first, '--dry-run'], env);
      expect(fresh.code).toBe(0);
      // A new dataset: each resource it would have, with its rows and size.
      expect(fresh.out).toBe(
        [
          'ada/prices is not published yet: publishing makes a new dataset of 1 resource',
          '+ prices: new, 2 rows, 17 B (prices.csv)',
          'nothing was uploaded (--dry-run)',
          '',
        ].join('\n'),
      );
      const freshJson = await data(['--json', 'publish', first, '--dry-run'], env);
      expect(JSON.parse(freshJson.out)).toEqual({
        dataset: 'ada/prices',
        published: false,
        diff: null,
        resources: [{ name: 'prices', path: 'prices.csv', rows: 2, bytes: 17 }],
      });
      expect((await fetch(`${url}/ada/prices/datapackage.json`)).status).toBe(404);
      await published(url, jwt, first);
      const before = await (await fetch(`${url}/ada/prices/datapackage.json`)).text();
      const next = await data(['publish', prices('id,price\n1,1\n2,3\n3,3\n'), '--dry-run'], env);
      expect(next.code).toBe(0);
      expect(next.out).toContain('~ prices: +1 row, −0, 1 changed, 1 unchanged (by id)');
      expect(next.out).toContain('  ~ id=2: price: 2 → 3');
      expect(next.out).toContain('nothing was uploaded (--dry-run)');
      expect(await (await fetch(`${url}/ada/prices/datapackage.json`)).text()).toBe(before);
      // An invalid package stops before any diff, as a publication does.
      const invalid = await data(['publish', prices('id,price\n1,one\n'), '--dry-run'], env);
      expect(invalid.code).toBe(1);
    });
  });

  it('shows the changes between two revisions on a page, escaped, to those who may read them', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const noted = (csv: string) => prices(csv, NOTED);
      await published(url, jwt, noted('id,price,note\n1,1,a\n2,2,b\n'));
      const hostile = noted('id,price,note\n1,1,<script>alert(1)</script>\n2,3,b\n');
      await published(url, jwt, hostile);
      const response = await fetch(`${url}/ada/prices/diff/1..2`);
      expect(response.status).toBe(200);
      const html = await response.text();
      expect(html).toContain(
        '0 rows added, 0 removed, 2 changed, 0 unchanged (rows matched by <code>id</code>).',
      );
      // Row 2: its key, its note unchanged (blank), its price changed from 2 to 3.
      expect(html).toContain(
        '<td>2</td><td></td><td class="cell-changed"><del><span class="hidden">was </span>2</del> → <ins><span class="hidden">now </span>3</ins></td>',
      );
      expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
      expect(html).not.toContain('<script>alert(1)');
      // The dataset's history links each revision to its changes.
      const datasetPage = await (await fetch(`${url}/ada/prices`)).text();
      expect(datasetPage).toContain('href="/ada/prices/diff/1..2">since 1</a>');
      for (const bad of ['1..9', '0..1', '1-2', '1..2..3'])
        expect((await fetch(`${url}/ada/prices/diff/${bad}`)).status, bad).toBe(404);
      // Private: its owner sees the page; anyone else does not know it exists.
      await published(url, jwt, prices('id,price\n1,1\n'), 'private');
      expect((await fetch(`${url}/ada/prices/diff/2..3`)).status).toBe(404);
      const own = await fetch(`${url}/ada/prices/diff/2..3`, {
        headers: { cookie: `data_session=${jwt}` },
      });
      expect(own.status).toBe(200);
    });
  });

  it('keeps the change summary of each published revision, made after its publication, for history and pages', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url);
      const bob = await browserLogin(url, 'bob');
      const withNote = (csv: string) => prices(csv, NOTED);
      type Listed = { revision: number; changes: { since: number | null } | null }[];
      /** The history as a user sees it, once the hub has summed up the revision asked for. */
      const summedUp = async (token: string, revision: number) => {
        for (;;) {
          const listed = await data(['--json', 'history', 'ada/prices'], {
            DATA_API: url,
            DATA_TOKEN: token,
          });
          const { revisions } = JSON.parse(listed.out) as { revisions: Listed };
          if (revisions.find((each) => each.revision === revision)?.changes) return revisions;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      await published(url, ada, prices('id,price\n1,1.0\n2,2\n3,3\n'));
      await published(url, ada, withNote('id,price,note\n1,1,\n2,2.5,\n4,4,x\n'));
      const revisions = await summedUp(ada, 2);
      expect(revisions.find((each) => each.revision === 2)?.changes).toEqual({
        since: 1,
        rows: { added: 1, removed: 1, changed: 1 },
        resources: { added: [], removed: [], renamed: [] },
        fields: { added: ['note'], removed: [], retyped: [], changed: [] },
        properties: [],
      });
      const history = await data(['history', 'ada/prices'], { DATA_API: url, DATA_TOKEN: ada });
      const lines = history.out.trim().split('\n');
      expect(lines[0]).toMatch(/^2\t.*\tsince 1: \+1 row, −1, 1 changed; field "note" added$/);
      expect(lines[1]).toMatch(/^1\t.*\tfirst revision$/);
      const page = await (await fetch(`${url}/ada/prices`)).text();
      expect(page).toContain(
        'Changes since revision 1</a>: +1 row, −1, 1 changed; field &quot;note&quot; added',
      );
      expect(page).toContain('since 1</a>: +1 row, −1, 1 changed; field &quot;note&quot; added');
      // A summary against a revision someone may not see is not shown to them.
      await published(url, ada, withNote('id,price,note\n1,1,\n'), 'private');
      await published(url, ada, withNote('id,price,note\n1,1,\n5,5,\n'));
      expect((await summedUp(ada, 4)).find((each) => each.revision === 4)?.changes?.since).toBe(3);
      const asBob = await data(['--json', 'history', 'ada/prices'], {
        DATA_API: url,
        DATA_TOKEN: bob,
      });
      const seen = (JSON.parse(asBob.out) as { revisions: Listed }).revisions;
      expect(seen.map((each) => each.revision)).toEqual([4, 2, 1]);
      expect(seen[0]?.changes).toBeNull();
      expect(seen[1]?.changes?.since).toBe(1);
      const bobPage = await (
        await fetch(`${url}/ada/prices`, { headers: { cookie: `data_session=${bob}` } })
      ).text();
      expect(bobPage).not.toContain('Changes since revision 3');
    });
  });

  it('pages the rows of a diff page, 50 of each kind at a time', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const rows = (price: number) =>
        Array.from({ length: 120 }, (_, index) => `${String(index + 1)},${String(price)}\n`).join(
          '',
        );
      await published(url, jwt, prices(`id,price\n${rows(1)}`));
      await published(url, jwt, prices(`id,price\n${rows(2)}`));
      const page = async (query: string) => {
        const response = await fetch(`${url}/ada/prices/diff/1..2${query}`);
        return { status: response.status, html: await response.text() };
      };
      const first = await page('');
      expect(first.html).toContain('<td>50</td><td class="cell-changed">');
      expect(first.html).not.toContain('<td>51</td>');
      expect(first.html).toContain('Rows shown: 1–50 of 120 changed');
      expect(first.html).toContain('href="/ada/prices/diff/1..2?page=2" rel="next"');
      expect(first.html).not.toContain('rel="prev"');
      const second = await page('?page=2');
      expect(second.html).toContain('Rows 51 to 100 of each kind');
      expect(second.html).not.toContain('<td>50</td>');
      expect(second.html).toContain('<td>51</td><td class="cell-changed">');
      expect(second.html).toContain('Rows shown: 51–100 of 120 changed');
      expect(second.html).toContain('href="/ada/prices/diff/1..2?page=1" rel="prev"');
      const last = await page('?page=3');
      expect(last.html).toContain('<td>120</td><td class="cell-changed">');
      expect(last.html).toContain('Rows shown: 101–120 of 120 changed');
      expect(last.html).not.toContain('rel="next"');
      for (const bad of ['?page=0', '?page=x', '?page=201', '?page=01'])
        expect((await page(bad)).status, bad).toBe(404);
    });
  });
});
