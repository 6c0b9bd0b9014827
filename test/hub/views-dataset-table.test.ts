import { describe, expect, it } from 'vitest';
import { folder } from '../helpers/fixtures.js';
import { browserLogin, publish, waitForState, withHub } from './helpers.js';

const HOSTILE = '<b>"bold"</b> \u202Eevil';

/** Two tables: one whose title, column and values are markup, and a plain one. */
function hostilePackage(): string {
  const rows = Array.from({ length: 120 }, (_, index) => `${String(index + 1)},v${String(index)}`);
  return folder({
    'odd.csv': `id,"${HOSTILE.replace(/"/g, '""')}"\n1,"${HOSTILE.replace(/"/g, '""')}"\n2,\n`,
    'plain.csv': `n,word\n${rows.join('\n')}\n`,
    'datapackage.json': {
      name: 'odd',
      resources: [
        {
          name: 'odd',
          title: HOSTILE,
          path: 'odd.csv',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: HOSTILE, type: 'string', description: HOSTILE },
            ],
          },
        },
        {
          name: 'plain',
          path: 'plain.csv',
          schema: {
            fields: [
              { name: 'n', type: 'integer' },
              { name: 'word', type: 'string' },
            ],
          },
        },
      ],
    },
  });
}

async function page(url: string): Promise<{ status: number; html: string }> {
  const response = await fetch(url);
  return { status: response.status, html: await response.text() };
}

const cells = (html: string) =>
  [...html.matchAll(/<tbody>(.*?)<\/tbody>/gs)].map((body) =>
    [...(body[1] ?? '').matchAll(/<tr>(.*?)<\/tr>/g)].map((row) =>
      [...(row[1] ?? '').matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((cell) =>
        (cell[1] ?? '').replace(/<[^>]+>/g, ''),
      ),
    ),
  );

describe('the dataset page’s table viewer, served', () => {
  it('picks a table by name or by an older link’s index, escapes a publisher’s names and values, and refuses a wrong parameter', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const { flowId } = await publish(url, jwt, hostilePackage());
      expect((await waitForState(url, flowId, jwt)).state).toBe('SUCCEEDED');
      const first = await page(`${url}/ada/odd`);
      expect(first.status).toBe(200);
      expect(first.html).not.toContain('<b>');
      expect(first.html).toContain('<bdi>&lt;b&gt;&quot;bold&quot;&lt;/b&gt; \u202Eevil</bdi>');
      expect(first.html).toContain(
        'aria-selected="true" aria-controls="table-viewer"><bdi>&lt;b&gt;',
      );
      // The missing cell is marked, not empty.
      expect(cells(first.html)[1]).toEqual([
        ['1', '&lt;b&gt;&quot;bold&quot;&lt;/b&gt; \u202Eevil'],
        ['2', '—missing'],
      ]);
      // The second table by name, and by its index as links of the page before named it.
      for (const table of ['plain', '1']) {
        const second = await page(`${url}/ada/odd?table=${table}&rows=100`);
        expect(second.status).toBe(200);
        expect(second.html).toContain(
          'id="table-tab-1" href="/ada/odd?table=plain#table-viewer" aria-selected="true"',
        );
        expect(second.html).toContain('Rows 101–120 of 120.');
      }
      // A filter on the column named with markup, as the address writes it.
      const filtered = await page(
        `${url}/ada/odd?table=odd&${new URLSearchParams({ [`has.${HOSTILE}`]: 'EVIL' }).toString()}`,
      );
      expect(filtered.status).toBe(200);
      expect(filtered.html).toContain('Rows 1–1 of 1 matching (2 in all).');
      // A wrong address is a 400 that still shows the table's first view, under the reason.
      for (const [wrong, reason, table] of [
        ['table=nope', '&quot;table&quot; names no table of this dataset', 'odd'],
        ['table=9', '&quot;table&quot; names no table of this dataset', 'odd'],
        ['sort=nope', '&quot;sort&quot; names no column of table &quot;odd&quot;', 'odd'],
        ['table=plain&min.n=x', '&quot;min.n&quot; must be a whole number', 'plain'],
        ['rows=-1', '&quot;rows&quot; must be a whole number', 'odd'],
      ] as const) {
        const refused = await page(`${url}/ada/odd?${wrong}`);
        expect(refused.status, wrong).toBe(400);
        expect(refused.html, wrong).toContain(
          `<p class="notice" role="alert">This view cannot be shown: ${reason}`,
        );
        expect(refused.html, wrong).toContain(`<caption class="hidden">Rows of ${table}</caption>`);
      }
    });
  });

  it('says sorting, filtering and searching are unavailable where the engine cannot load, and pages the CSV copy', async () => {
    await withHub({}, async ({ url, hub }) => {
      // As on a platform DuckDB has no binary for.
      (hub.viewer.engine as unknown as { loading: Promise<unknown> }).loading = Promise.resolve({
        missing: 'no binary',
      });
      const jwt = await browserLogin(url);
      const { flowId } = await publish(url, jwt, hostilePackage());
      expect((await waitForState(url, flowId, jwt)).state).toBe('SUCCEEDED');
      const sorted = await page(`${url}/ada/odd?table=plain&sort=n&order=desc`);
      expect(sorted.status).toBe(200);
      expect(sorted.html).toContain(
        'Sorting, filtering and searching are unavailable on this hub.',
      );
      // Rows in the table's order, no sort claimed, no controls that cannot work.
      expect(cells(sorted.html)[1]?.[0]).toEqual(['1', 'v0']);
      expect(sorted.html).not.toContain('aria-sort');
      expect(sorted.html).not.toContain('<form class="query"');
      expect(sorted.html).not.toContain('This view as JSON');
      // Pages in the table's order still come, from the CSV copy.
      const later = await page(`${url}/ada/odd?table=plain&rows=50`);
      expect(later.html).toContain('Rows 51–100 of 120.');
      expect(cells(later.html)[1]?.[0]).toEqual(['51', 'v50']);
      // No deeper than the hub reads a copy from its start.
      const deep = await page(`${url}/ada/odd?table=plain&rows=20000`);
      expect(deep.status).toBe(200);
      expect(deep.html).toContain('rows past the first 10,000 are in the download.');
    });
  });
});
