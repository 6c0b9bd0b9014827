import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  HAS_CHROMIUM,
  launchChromium,
  overflow,
  seriousViolations,
  WIDTHS,
} from '../helpers/chromium.js';
import { folder } from '../helpers/fixtures.js';
import { browserLogin, publish, waitForState, withHub } from '../hub/helpers.js';

const SHOTS = join(import.meta.dirname, '../../test-output/pages');

const LONG = 'a note long enough to wrap on a phone and then some; '.repeat(3).trim();

/** A shop: prices by id (a key), and days out of order with a line chart over them. */
function shop(prices: string, unit: boolean): string {
  return folder({
    'prices.csv': prices,
    'days.csv': 'day,sales\n2024-01-03,30\n2023-02-10,12\n2023-07-01,18.5\n2024-01-01,27\n',
    'datapackage.json': {
      name: 'shop',
      resources: [
        {
          name: 'prices',
          path: 'prices.csv',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'price', type: 'number' },
              { name: 'note', type: 'string' },
              ...(unit ? [{ name: 'unit', type: 'string' }] : []),
            ],
            primaryKey: ['id'],
          },
        },
        {
          name: 'days',
          path: 'days.csv',
          schema: {
            fields: [
              { name: 'day', type: 'date' },
              { name: 'sales', type: 'number' },
            ],
          },
        },
      ],
      views: [
        {
          name: 'sales',
          title: 'Sales by day',
          resources: ['days'],
          specType: 'simple',
          spec: { type: 'line', group: 'day', series: ['sales'] },
        },
      ],
    },
  });
}

describe.skipIf(!HAS_CHROMIUM)('the diff and chart pages in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser.close();
  });

  it('a diff page as tables and a chart in order, at desktop and phone widths, no serious accessibility violation', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      for (const dir of [
        shop('id,price,note\n1,1,a\n2,2,b\n3,3,c\n', false),
        shop(`id,price,note,unit\n1,1,a,kg\n2,2.5,${LONG},kg\n4,4,new,kg\n`, true),
      ])
        expect((await waitForState(url, (await publish(url, jwt, dir)).flowId, jwt)).state).toBe(
          'SUCCEEDED',
        );
      mkdirSync(SHOTS, { recursive: true });
      for (const [device, viewport] of Object.entries(WIDTHS)) {
        const context = await browser.newContext({ viewport });
        const page = await context.newPage();

        // The diff page: the schema change above, then rows added, removed and changed (rows
        // are compared on the fields both revisions have).
        expect((await page.goto(`${url}/ada/shop/diff/1..2`))?.status()).toBe(200);
        const region = page.getByRole('region', { name: 'Rows of prices' });
        await expect.poll(() => region.count()).toBe(1);
        const table = region.getByRole('table');
        expect(await page.textContent('section.diff-table ul.schema-changes')).toContain(
          'Field unit added',
        );
        const rowsOf = async (kind: string) =>
          (await table.locator(`tr.${kind}`).allInnerTexts()).map((text) =>
            text.replace(/\s+/g, ' ').trim(),
          );
        expect(await rowsOf('added')).toEqual(['+ Added 4 4 new']);
        expect(await rowsOf('removed')).toEqual(['− Removed 3 3 c']);
        // Row 2's price and note changed, each cell marked old → new.
        const marked = table.locator('tr.changed td.cell-changed');
        expect(await marked.count()).toBe(2);
        expect(await marked.first().locator('del').textContent()).toBe('was 2');
        expect(await marked.last().locator('del').textContent()).toBe('was b');
        expect(await marked.first().locator('ins').textContent()).toBe('now 2.5');
        expect(await table.locator('tr.changed td.cell-changed ins').last().textContent()).toBe(
          `now ${LONG}`,
        );
        expect(await page.textContent('body')).toContain('1–1 of 1 added');
        // The keyboard reaches the table's region, which scrolls in place if it must.
        await region.focus();
        const focused = await page.evaluate(() => {
          const active = (
            globalThis as unknown as {
              document: { activeElement: { getAttribute(name: string): string | null } | null };
            }
          ).document.activeElement;
          return [active?.getAttribute('role'), active?.getAttribute('tabindex')];
        });
        expect(focused).toEqual(['region', '0']);
        expect(await overflow(page), `diff at ${device} width`).toBeLessThanOrEqual(0);
        expect(await seriousViolations(page), `diff at ${device} width`).toEqual([]);
        const diffShot = join(SHOTS, `diff-tables-${device}.png`);
        await page.screenshot({ path: diffShot, fullPage: true });
        expect(statSync(diffShot).size).toBeGreaterThan(10_000);

        // The dataset page's chart: the days in order along x, calendar ticks, round y ticks.
        expect((await page.goto(`${url}/ada/shop`))?.status()).toBe(200);
        const chart = page.locator('figure.chart svg');
        const ticks = await Promise.all(
          (await chart.locator('text').all()).map(async (text) => ({
            x: Number(await text.getAttribute('x')),
            anchor: await text.getAttribute('text-anchor'),
            label: await text.textContent(),
          })),
        );
        const xTicks = ticks.filter((tick) => tick.anchor !== 'end' || tick.x > 100);
        const yTicks = ticks.filter((tick) => !xTicks.includes(tick));
        expect(xTicks.map((tick) => tick.label)).toEqual([
          'Apr 2023',
          'Jul 2023',
          'Oct 2023',
          'Jan 2024',
        ]);
        expect(xTicks.map((tick) => tick.x)).toEqual(
          [...xTicks.map((tick) => tick.x)].sort((a, b) => a - b),
        );
        expect(yTicks.map((tick) => tick.label)).toEqual(['10', '15', '20', '25', '30']);
        const points = ((await chart.locator('polyline').getAttribute('points')) ?? '')
          .split(' ')
          .map((point) => point.split(',').map(Number));
        const xs = points.map(([x = 0]) => x);
        expect(xs).toEqual([...xs].sort((a, b) => a - b));
        // 12, 18.5, 27, 30 in the order of their days: up and up (the SVG's y grows down).
        const ys = points.map(([, y = 0]) => y);
        expect(ys).toEqual([...ys].sort((a, b) => b - a));
        expect(await chart.getAttribute('aria-label')).toBe(
          'Sales by day. Line chart of sales by day, 4 points from 2023-02-10 to 2024-01-03, values from 12 to 30.',
        );
        expect(await overflow(page), `dataset at ${device} width`).toBeLessThanOrEqual(0);
        expect(await seriousViolations(page), `dataset at ${device} width`).toEqual([]);
        await context.close();
      }
    });
  }, 120_000);
});
