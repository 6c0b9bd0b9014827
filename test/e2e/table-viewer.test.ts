/**
 * The dataset page's table viewer in Chromium, on a generated table of a million rows
 * published once to a real hub: picking a table (with the mouse and with the keyboard),
 * sorting, filtering, searching and paging to the last row, each view checked against the
 * rows the same function generated, and axe-core on each view, at desktop and phone widths.
 */
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHub, type RunningHub } from '../../packages/hub/src/server.js';
import {
  HAS_CHROMIUM,
  launchChromium,
  overflow,
  seriousViolations,
  WIDTHS,
} from '../helpers/chromium.js';
import { browserLogin, publish, tempDir, waitForState } from '../hub/helpers.js';

const SHOTS = join(import.meta.dirname, '../../test-output/pages');

const ROWS = 1_000_000;
const PAGE = 50;
const CATEGORIES = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'];
const DAY = 86_400_000;
const START = Date.UTC(2000, 0, 1);

/** Categories of unequal frequency: alpha 8 in 36, beta 7, and so on to theta 1. */
function category(at: number): string {
  let left = at;
  for (const [weight, name] of CATEGORIES.entries()) {
    left -= CATEGORIES.length - weight;
    if (left < 0) return name;
  }
  return '';
}

/** Row `index` (from 0) of the generated table, its cells as the page shows them. */
function row(index: number): (string | null)[] {
  const amount = index % 97 === 0 ? null : ((index * 7907) % 100_000) / 100;
  return [
    String(index + 1),
    new Date(START + ((index * 7919) % 9000) * DAY).toISOString().slice(0, 10),
    amount === null ? null : String(amount),
    category((index * 7 + (index >> 4)) % 36),
    String(index % 3 === 0),
    index % 1000 === 7 ? `Lighthouse ${String(index)}` : `note ${String(index % 500)}`,
  ];
}

/** A small second table, with names and values a publisher may send: markup, quotes, RTL. */
const CODES = [
  ['alpha', '<b>first</b> "one"'],
  ['beta', '\u202Eevil\u202C \u05e9\u05dc\u05d5\u05dd'],
  ['gamma', "it's"],
];

/** Rows `from` to `to` (from 0, `to` left out) of the generated table. */
const rows = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, index) => row(from + index));

/** The generated rows that `keep` keeps, in the table's order. */
function rowsWhere(keep: (cells: (string | null)[]) => boolean): (string | null)[][] {
  const kept: (string | null)[][] = [];
  for (let index = 0; index < ROWS; index++) {
    const cells = row(index);
    if (keep(cells)) kept.push(cells);
  }
  return kept;
}

/** The table's row numbers sorted by amount, equal amounts in the table's order, missing last. */
function byAmount(descending: boolean): Int32Array {
  const amounts = new Float64Array(ROWS);
  for (let index = 0; index < ROWS; index++) amounts[index] = Number(row(index)[2] ?? NaN);
  return new Int32Array(ROWS)
    .map((_, index) => index)
    .sort((a, b) => {
      const [x = NaN, y = NaN] = [amounts[a], amounts[b]];
      if (Number.isNaN(x) || Number.isNaN(y))
        return Number.isNaN(x) === Number.isNaN(y) ? a - b : Number.isNaN(x) ? 1 : -1;
      return (descending ? y - x : x - y) || a - b;
    });
}

function writePackage(dir: string): void {
  const file = join(dir, 'events.csv');
  writeFileSync(file, 'id,day,amount,category,open,note\n');
  for (let from = 0; from < ROWS; from += 100_000)
    appendFileSync(
      file,
      `${rows(from, from + 100_000)
        .map((cells) => cells.map((cell) => cell ?? '').join(','))
        .join('\n')}\n`,
    );
  writeFileSync(
    join(dir, 'codes.csv'),
    `code,label\n${CODES.map(([code, label]) => `${code ?? ''},"${(label ?? '').replace(/"/g, '""')}"`).join('\n')}\n`,
  );
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: 'big',
      title: 'A million events',
      resources: [
        {
          name: 'events',
          path: 'events.csv',
          schema: {
            fields: [
              { name: 'id', type: 'integer', description: 'The row number' },
              { name: 'day', type: 'date' },
              { name: 'amount', type: 'number', title: 'Amount in euros' },
              { name: 'category', type: 'string', constraints: { enum: CATEGORIES } },
              { name: 'open', type: 'boolean' },
              { name: 'note', type: 'string' },
            ],
          },
        },
        {
          name: 'codes',
          title: 'Category codes',
          path: 'codes.csv',
          schema: {
            fields: [
              { name: 'code', type: 'string' },
              { name: 'label', type: 'string' },
            ],
          },
        },
      ],
    }),
  );
}

/** A table of 45 columns (c0…c44) and 30 rows, cell c<j> of row i being i * 100 + j. */
const WIDE = 45;
function writeWide(dir: string): void {
  const names = Array.from({ length: WIDE }, (_, column) => `c${String(column)}`);
  const lines = Array.from({ length: 30 }, (_, row) =>
    names.map((_, column) => String(row * 100 + column)).join(','),
  );
  writeFileSync(join(dir, 'wide.csv'), `${names.join(',')}\n${lines.join('\n')}\n`);
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: 'wide',
      resources: [
        {
          name: 'wide',
          path: 'wide.csv',
          schema: { fields: names.map((name) => ({ name, type: 'integer' })) },
        },
      ],
    }),
  );
}

/** The rows of the table shown, each cell's text, null for a cell marked missing. */
function shownRows(page: Page): Promise<(string | null)[][]> {
  interface Cell {
    querySelector(selector: string): unknown;
    textContent: string | null;
  }
  interface Row {
    querySelectorAll(selector: string): Iterable<Cell>;
  }
  return page.$$eval('#table-viewer table.rows tbody tr', (trs: unknown[]) =>
    (trs as Row[]).map((tr) =>
      [...tr.querySelectorAll('td')].map((td) =>
        td.querySelector('.missing') ? null : (td.textContent ?? '').trim(),
      ),
    ),
  );
}

/** The text of the element that has the focus. */
const focused = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { textContent: string } | null } })
        .document.activeElement?.textContent,
  );

/** The id of the element that has the focus ('' for the body). */
const focusedId = (page: Page) =>
  page.evaluate(
    () =>
      (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document
        .activeElement?.id ?? '',
  );

/** The line above the table that says the view's order, filters and search, as read. */
const stateText = async (page: Page) =>
  ((await page.locator('#table-viewer p.state').textContent()) ?? '')
    .replace(/×Remove[^·]*/g, '')
    .replace(/\s+/g, ' ')
    .trim();

const pagerText = async (page: Page) =>
  ((await page.textContent('#table-viewer nav.pager')) ?? '').replace(/\s+/g, ' ');

/** Clicks a link and waits for the page it leads to. */
async function follow(page: Page, click: () => Promise<void>): Promise<void> {
  const url = page.url();
  await Promise.all([page.waitForURL((next) => next.href !== url), click()]);
}

describe.skipIf(!HAS_CHROMIUM)('the table viewer in Chromium, on a million rows', () => {
  let browser: Browser;
  let running: RunningHub;
  const dir = tempDir();
  const wideDir = tempDir();
  const data = tempDir();

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    writePackage(dir);
    running = await startHub({ dataDir: data, log: () => undefined });
    const jwt = await browserLogin(running.url);
    const { flowId } = await publish(running.url, jwt, dir);
    expect((await waitForState(running.url, flowId, jwt)).state).toBe('SUCCEEDED');
    writeWide(wideDir);
    const wide = await publish(running.url, jwt, wideDir);
    expect((await waitForState(running.url, wide.flowId, jwt)).state).toBe('SUCCEEDED');
    browser = await launchChromium();
  }, 300_000);

  afterAll(async () => {
    await browser?.close();
    await running?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(wideDir, { recursive: true, force: true });
    rmSync(data, { recursive: true, force: true });
  });

  /** Each view is checked the same way: no serious violation, no sideways scroll. */
  async function checked(page: Page, what: string): Promise<void> {
    await page.screenshot({ path: join(SHOTS, `table-viewer ${what}.png`), fullPage: true });
    expect(await seriousViolations(page), what).toEqual([]);
    expect(await overflow(page), what).toBeLessThanOrEqual(0);
  }

  for (const [device, viewport] of Object.entries(WIDTHS))
    it(`picks, sorts, filters, searches and pages to the last row at ${device} width`, async () => {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(message.text());
      });
      try {
        const url = `${running.url}/ada/big`;
        expect((await page.goto(url))?.status()).toBe(200);

        // The first view: the first table, its first rows, from the preview.
        const tabs = page.getByRole('tablist', { name: 'Tables' }).getByRole('tab');
        expect(await tabs.allTextContents()).toEqual(['events', 'Category codes']);
        const events = page.getByRole('tab', { name: 'events' });
        expect(await events.getAttribute('aria-selected')).toBe('true');
        expect(await page.getByRole('tabpanel', { name: 'events' }).count()).toBe(1);
        expect(await shownRows(page)).toEqual(rows(0, PAGE));
        expect(await pagerText(page)).toContain('Rows 1–50 of 1,000,000.');
        const header = (name: string) =>
          page.getByRole('columnheader', { name: new RegExp(`^${name}\\b`) });
        expect(await header('amount').textContent()).toContain('Amount in euros');
        expect(await header('id').getAttribute('aria-sort')).toBe('none');

        // Each column's statistics, computed after publication, under its header.
        await expect
          .poll(
            async () => {
              await page.reload();
              return page.locator('#table-viewer tr.stats').count();
            },
            { timeout: 60_000 },
          )
          .toBe(1);
        const stats = page.locator('#table-viewer tr.stats td');
        const amounts = rowsWhere((cells) => cells[2] !== null).map((cells) => Number(cells[2]));
        const least = amounts.reduce((a, b) => Math.min(a, b));
        const most = amounts.reduce((a, b) => Math.max(a, b));
        const [said = '', range] = await stats.nth(2).locator('div').allTextContents();
        const missing = (ROWS - amounts.length).toLocaleString('en');
        // Distinct values are counted exactly in a table of a million rows.
        const distinct = Number(/· ([\d,]+) distinct$/.exec(said)?.[1]?.replace(/,/g, ''));
        expect(said).toMatch(new RegExp(`^${missing} missing · `));
        expect(distinct).toBe(new Set(amounts).size);
        expect(range).toBe(`${String(least)} – ${String(most)}`);
        expect(await stats.nth(2).getByRole('img').getAttribute('aria-label')).toMatch(
          /^Histogram of amount: 20 bins from 0 to 999\.99; the most rows, [\d,]+, from /,
        );
        // The most frequent categories, each with its count.
        const counts = new Map<string, number>();
        for (const cells of rowsWhere(() => true))
          counts.set(cells[3] ?? '', (counts.get(cells[3] ?? '') ?? 0) + 1);
        const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 5);
        expect(await stats.nth(3).getByRole('listitem').allTextContents()).toEqual(
          top.map(([value, count]) => `${value} (${count.toLocaleString('en')})`),
        );
        expect(await stats.nth(3).textContent()).toContain(
          `and ${String(counts.size - top.length)} more values`,
        );
        await checked(page, `first view at ${device}`);

        // Picking a table from the keyboard: the arrow moves among the tabs, Enter opens one.
        await events.focus();
        await page.keyboard.press('ArrowRight');
        const codes = page.getByRole('tab', { name: 'Category codes' });
        expect(await focused(page)).toBe('Category codes');
        await follow(page, () => page.keyboard.press('Enter'));
        expect(page.url()).toContain('table=codes');
        // The focus is on the tab chosen, on the new page, as before it (it was on the body).
        expect(await focusedId(page)).toBe('table-tab-1');
        expect(await codes.getAttribute('aria-selected')).toBe('true');
        // The publisher's markup is text, not markup.
        expect(await shownRows(page)).toEqual(CODES);
        expect(await page.locator('#table-viewer tbody b').count()).toBe(0);
        // A text column of a few values, every one among its most frequent, is chosen from.
        expect(await page.getByLabel('code equals').locator('option').allTextContents()).toEqual([
          'any',
          'alpha',
          'beta',
          'gamma',
        ]);
        expect(await page.getByLabel('label equals').locator('option').count()).toBe(4);
        await checked(page, `codes at ${device}`);
        // On the new page, Home and End reach the first and last tabs.
        await codes.focus();
        await page.keyboard.press('Home');
        expect(await focused(page)).toBe('events');
        await page.keyboard.press('End');
        expect(await focused(page)).toBe('Category codes');
        await page.keyboard.press('Home');
        expect(await focused(page)).toBe('events');
        await follow(page, () => events.click());

        // Sorting by amount: ascending, then descending; equal amounts in the table's order,
        // missing ones last.
        const sorted = (order: Int32Array, from: number, to: number) =>
          [...order.subarray(from, to)].map(row);
        await follow(page, () => header('amount').getByRole('link').click());
        expect(await header('amount').getAttribute('aria-sort')).toBe('ascending');
        // The focus on the sorted header's link; above the table, the order said in words.
        expect(await focusedId(page)).toBe('sort-2');
        expect(await stateText(page)).toBe('Sorted by amount, ascending');
        expect(await header('id').getAttribute('aria-sort')).toBe('none');
        const ascending = byAmount(false);
        expect(await shownRows(page)).toEqual(sorted(ascending, 0, PAGE));
        await checked(page, `sorted at ${device}`);
        await follow(page, () => header('amount').getByRole('link').press('Enter'));
        expect(await header('amount').getAttribute('aria-sort')).toBe('descending');
        expect(await focusedId(page)).toBe('sort-2');
        expect(await shownRows(page)).toEqual(sorted(byAmount(true), 0, PAGE));
        // The last page of a sort: missing amounts, last whichever the order.
        await follow(page, () => page.getByRole('link', { name: 'Last', exact: true }).click());
        expect(await shownRows(page)).toEqual(sorted(ascending, ROWS - PAGE, ROWS));
        // The last page has no Last link: the focus is on the panel.
        expect(await focusedId(page)).toBe('table-viewer');
        // The sort undone from the line above the table, by its link's name.
        await follow(page, () =>
          page.getByRole('link', { name: 'Remove the sort by amount' }).click(),
        );
        expect(await header('amount').getAttribute('aria-sort')).toBe('none');
        expect(await shownRows(page)).toEqual(rows(0, PAGE));
        expect(await page.locator('#table-viewer p.state').count()).toBe(0);

        // Filtering: a category and a range of amounts, labelled by their columns.
        await page.getByText('Filters', { exact: true }).click();
        await page.getByLabel('category equals').selectOption('gamma');
        await page.getByLabel('amount from').fill('100');
        await page.getByLabel('amount to').fill('200.5');
        await follow(page, () => page.getByRole('button', { name: 'Apply' }).click());
        expect(await focusedId(page)).toBe('table-viewer');
        expect(await stateText(page)).toBe('amount from 100 to 200.5 · category is gamma');
        const address = new URL(page.url());
        // Only what is set is in the address, so that a view can be linked.
        expect([...address.searchParams.keys()].sort()).toEqual([
          'eq.category',
          'max.amount',
          'min.amount',
          'table',
        ]);
        const filtered = rowsWhere(
          (cells) =>
            cells[3] === 'gamma' &&
            cells[2] !== null &&
            Number(cells[2]) >= 100 &&
            Number(cells[2]) <= 200.5,
        );
        expect(await shownRows(page)).toEqual(filtered.slice(0, PAGE));
        // A frequent match is counted after its first page: its page says so till then.
        if ((await pagerText(page)).includes('at least')) {
          expect(await page.getByRole('link', { name: 'Last', exact: true }).count()).toBe(0);
          await running.hub.viewer.counted();
          await page.reload();
        }
        expect(await pagerText(page)).toContain(
          `Rows 1–50 of ${filtered.length.toLocaleString('en')} matching (1,000,000 in all).`,
        );
        // The same view as JSON, at its route.
        const json = await page
          .getByRole('link', { name: 'This view as JSON' })
          .getAttribute('href');
        const answer = (await (await fetch(new URL(json ?? '', running.url))).json()) as {
          rows: unknown[][];
          matching: number;
        };
        expect(answer.matching).toBe(filtered.length);
        expect(answer.rows.map((cells) => String(cells[0]))).toEqual(
          filtered.slice(0, PAGE).map((cells) => cells[0]),
        );
        await checked(page, `filtered at ${device}`);

        // Searching every text cell, case aside; paging to the last match.
        await follow(page, () => page.getByRole('link', { name: 'Clear', exact: true }).click());
        const search = page.getByRole('searchbox', { name: 'Search this table' });
        await search.fill('LIGHTHOUSE');
        await follow(page, () => search.press('Enter'));
        expect(await focusedId(page)).toBe('table-viewer');
        expect(await stateText(page)).toBe('search “LIGHTHOUSE”');
        const found = rowsWhere((cells) => Boolean(cells[5]?.toLowerCase().includes('lighthouse')));
        expect(found).toHaveLength(1000);
        expect(await shownRows(page)).toEqual(found.slice(0, PAGE));
        expect(await pagerText(page)).toContain('Rows 1–50 of 1,000 matching (1,000,000 in all).');
        await checked(page, `searched at ${device}`);
        await follow(page, () => page.getByRole('link', { name: 'Last', exact: true }).click());
        expect(await shownRows(page)).toEqual(found.slice(-PAGE));
        expect(await pagerText(page)).toContain('Rows 951–1,000 of 1,000 matching');

        // Paging the whole table to its last row, and back.
        await follow(page, () => page.getByRole('link', { name: 'Remove the search' }).click());
        const link = (name: string) => page.getByRole('link', { name, exact: true });
        await follow(page, () => link('Last').click());
        expect(await shownRows(page)).toEqual(rows(ROWS - PAGE, ROWS));
        expect((await shownRows(page)).at(-1)?.[0]).toBe('1000000');
        expect(await pagerText(page)).toContain('Rows 999,951–1,000,000 of 1,000,000.');
        expect(await link('Next').count()).toBe(0);
        await checked(page, `last page at ${device}`);
        await follow(page, () => link('Previous').click());
        expect(await shownRows(page)).toEqual(rows(ROWS - 2 * PAGE, ROWS - PAGE));
        expect(await focusedId(page)).toBe('page-previous');
        await follow(page, () => link('Next').click());
        // No Next on the last page: the panel has the focus.
        expect(await focusedId(page)).toBe('table-viewer');
        expect(await pagerText(page)).toContain('Rows 999,951–1,000,000');
        await follow(page, () => link('Previous').press('Enter'));
        expect(await focusedId(page)).toBe('page-previous');
        await follow(page, () => link('Next').press('Enter'));
        await follow(page, () => link('First').click());
        expect(await shownRows(page)).toEqual(rows(0, PAGE));
        // No First link on the first page: the panel has the focus.
        expect(await focusedId(page)).toBe('table-viewer');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }, 240_000);

  it('shows a wide table 20 columns at a time, all on demand, the sorted one in sight on a phone', async () => {
    const context = await browser.newContext({ viewport: WIDTHS.phone });
    const page = await context.newPage();
    try {
      const heads = () => page.locator('#table-viewer thead th').allTextContents();
      const names = (from: number, to: number) =>
        Array.from({ length: to - from }, (_, index) => `c${String(from + index)}`);
      const shownNames = async () => (await heads()).map((text) => /^c\d+/.exec(text)?.[0]);
      await page.goto(`${running.url}/ada/wide`);
      expect(await shownNames()).toEqual(names(0, 20));
      const line = page.locator('#table-viewer p.columns');
      expect(await line.textContent()).toMatch(/^Columns 1–20 of 45 · /);
      await follow(page, () => page.getByRole('link', { name: 'Next columns' }).click());
      expect(await shownNames()).toEqual(names(20, 40));
      expect((await shownRows(page))[1]?.[0]).toBe('120');
      await follow(page, () => page.getByRole('link', { name: 'Show all 45 columns' }).click());
      expect(await shownNames()).toEqual(names(0, WIDE));
      // Sorting by the last column, far to the right on a phone: its header is brought into
      // sight in the table's own scroll, its link focused.
      const last = page.getByRole('columnheader', { name: /^c44\b/ });
      await follow(page, () => last.getByRole('link').press('Enter'));
      expect(await focusedId(page)).toBe('sort-44');
      expect(await last.getAttribute('aria-sort')).toBe('ascending');
      expect(
        await page
          .locator('#table-viewer .scroll')
          .evaluate((box) => (box as unknown as { scrollLeft: number }).scrollLeft),
      ).toBeGreaterThan(0);
      await checked(page, 'wide, all columns, sorted by the last at phone');
      // 20 at a time again: the sorted column stays, and the line above says the order.
      await follow(page, () => page.getByRole('link', { name: 'Show 20 at a time' }).click());
      expect(await shownNames()).toEqual([...names(0, 20), 'c44']);
      expect(await stateText(page)).toBe('Sorted by c44, ascending');
      await checked(page, 'wide, 20 columns and the sorted one at phone');
    } finally {
      await context.close();
    }
  }, 120_000);

  it('works without script: every tab is a link, and the search form sends its view in the address', async () => {
    const context = await browser.newContext({
      viewport: WIDTHS.desktop,
      javaScriptEnabled: false,
    });
    const page = await context.newPage();
    try {
      await page.goto(`${running.url}/ada/big`);
      // Every tab is reached by Tab, as a link.
      const codes = page.getByRole('tab', { name: 'Category codes' });
      expect(await codes.getAttribute('tabindex')).toBeNull();
      await follow(page, () => codes.click());
      expect(await shownRows(page)).toEqual(CODES);
      await follow(page, () => page.getByRole('tab', { name: 'events' }).click());
      const search = page.getByRole('searchbox', { name: 'Search this table' });
      await search.fill('lighthouse 99');
      await follow(page, () => search.press('Enter'));
      // The empty filters are sent too, and set nothing.
      expect(new URL(page.url()).searchParams.get('min.amount')).toBe('');
      const found = rowsWhere((cells) =>
        Boolean(cells[5]?.toLowerCase().includes('lighthouse 99')),
      );
      expect(await shownRows(page)).toEqual(found.slice(0, PAGE));
      expect(await pagerText(page)).toContain(
        `of ${found.length.toLocaleString('en')} matching (1,000,000 in all).`,
      );
    } finally {
      await context.close();
    }
  }, 120_000);
});
