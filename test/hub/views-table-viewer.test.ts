import { describe, expect, it } from 'vitest';
import { queryParams } from '../../packages/hub/src/services/viewer/query-params.js';
import type {
  Cell,
  ColumnStats,
  TableQuery,
} from '../../packages/hub/src/services/viewer/types.js';
import {
  cellHtml,
  COLUMNS_SHOWN,
  statsHtml,
  tableViewer,
  type TableViewerView,
} from '../../packages/hub/src/views/table-viewer.js';

const HOSTILE = '<img src=x onerror=alert(1)>"\'\u202Eevil';

function view(change: Partial<TableViewerView> = {}, query: Partial<TableQuery> = {}) {
  const base: TableViewerView = {
    base: '/ada/shop',
    tables: [
      { name: 'prices', title: 'Prices' },
      { name: 'days', title: undefined },
    ],
    query: { table: 'prices', filters: [], offset: 0, limit: 50, ...query },
    fields: [
      { name: 'id', type: 'integer', description: 'The key' },
      { name: 'price', type: 'number' },
      { name: 'note', type: 'string' },
      { name: 'sold', type: 'date' },
      { name: 'open', type: 'boolean' },
      { name: 'size', type: 'string', values: ['S', 'M'] },
    ],
    page: {
      table: 'prices',
      columns: [
        { name: 'id', type: 'integer' },
        { name: 'price', type: 'number' },
        { name: 'note', type: 'string' },
        { name: 'sold', type: 'date' },
        { name: 'open', type: 'boolean' },
        { name: 'size', type: 'string' },
      ],
      rows: [
        [1, 2.5, 'a', '2024-01-03', true, 'S'],
        [2, null, null, null, false, 'M'],
      ],
      offset: 0,
      matching: 2,
      total: 2,
    },
    stats: undefined,
    engine: true,
    ...change,
  };
  return tableViewer(base, queryParams);
}

const links = (html: string): Record<string, string> =>
  Object.fromEntries(
    [
      ...html.matchAll(
        /<a id="page-\w+" href="([^"]*)"(?: rel="\w+")?>(First|Previous|Next|Last)<\/a>/g,
      ),
    ].map((found): [string, string] => [found[2] ?? '', (found[1] ?? '').replace(/&amp;/g, '&')]),
  );

describe('the table viewer (rendering)', () => {
  it('picks a table from a tablist of links, one tab selected, controlling one tabpanel', () => {
    const html = view();
    expect(html).toContain('<div role="tablist" aria-label="Tables">');
    const tabs = [
      ...html.matchAll(
        /<a role="tab" id="([^"]+)" href="([^"]+)" aria-selected="(\w+)" aria-controls="table-viewer"><bdi>([^<]+)<\/bdi><\/a>/g,
      ),
    ];
    expect(tabs.map((tab) => [tab[1], tab[2], tab[3], tab[4]])).toEqual([
      ['table-tab-0', '/ada/shop?table=prices#table-viewer', 'true', 'Prices'],
      ['table-tab-1', '/ada/shop?table=days#table-viewer', 'false', 'days'],
    ]);
    expect(html).toContain(
      '<div id="table-viewer" role="tabpanel" aria-labelledby="table-tab-0" tabindex="-1">',
    );
    // One table: no picker, no tabpanel.
    const alone = view({ tables: [{ name: 'prices', title: undefined }] });
    expect(alone).not.toContain('role="tab');
  });

  it('heads each column with its name, type and description; the sorted one says its order', () => {
    const html = view({}, { sort: { column: 'price', descending: false } });
    const heads = [...html.matchAll(/<th scope="col"( aria-sort="(\w+)")?>(.*?)<\/th>/g)];
    expect(heads.map((head) => head[2])).toEqual([
      'none',
      'ascending',
      'none',
      'none',
      'none',
      'none',
    ]);
    expect(heads[0]?.[3]).toContain('<span class="type">integer</span>');
    expect(heads[0]?.[3]).toContain('<span class="about">The key</span>');
    // The sort link: ascending at first, descending on the column sorted ascending, from row 1.
    const href = (head: RegExpMatchArray | undefined) =>
      (/<a id="sort-\d+" href="([^"]+)"/.exec(head?.[3] ?? '')?.[1] ?? '').replace(/&amp;/g, '&');
    expect(href(heads[0])).toBe('/ada/shop?table=prices&sort=id&order=asc#table-viewer');
    expect(href(heads[1])).toBe('/ada/shop?table=prices&sort=price&order=desc#table-viewer');
    expect(heads[1]?.[3]).toContain('<span class="hidden">, sort descending</span>');
    const descending = view({}, { sort: { column: 'price', descending: true } });
    expect(descending).toContain('aria-sort="descending"');
    // Without the engine, nothing sorts: no aria-sort, no links, no form, and it says so.
    const plain = view({ engine: false, deepest: 10_000 });
    expect(plain).not.toContain('aria-sort');
    expect(plain).not.toContain('<form');
    expect(plain).toContain('Sorting, filtering and searching are unavailable on this hub.');
  });

  it('shows numbers right-aligned, dates and booleans as such, missing as a mark', () => {
    expect(cellHtml(2.5, 'number')).toBe('<td class="number">2.5</td>');
    expect(cellHtml('12', 'integer')).toBe('<td class="number">12</td>');
    expect(cellHtml('2024-01-03', 'date')).toBe(
      '<td><time datetime="2024-01-03">2024-01-03</time></td>',
    );
    // A moment without milliseconds when it has none; its datetime attribute as written.
    expect(cellHtml('2024-01-03T10:00:00.000Z', 'datetime')).toBe(
      '<td><time datetime="2024-01-03T10:00:00.000Z">2024-01-03T10:00:00Z</time></td>',
    );
    expect(cellHtml('2024-01-03T10:00:00.250Z', 'datetime')).toContain(
      '>2024-01-03T10:00:00.250Z<',
    );
    expect(cellHtml(true, 'boolean')).toBe('<td><span class="bool true">true</span></td>');
    expect(cellHtml(null, 'integer')).toMatch(/^<td class="number"><span class="missing">/);
    for (const missing of [null, '', undefined])
      expect(cellHtml(missing, 'string')).toContain('<span class="hidden">missing</span>');
    expect(cellHtml('x'.repeat(1000), 'string')).toContain('(1,000 characters)');
  });

  it('has a labelled searchbox and filters labelled by their column, in a GET form', () => {
    const html = view(
      {},
      {
        search: 'lamp',
        filters: [
          { column: 'price', kind: 'range', min: '1' },
          { column: 'open', kind: 'equals', value: 'true' },
          { column: 'note', kind: 'contains', value: 'x"y' },
        ],
        sort: { column: 'id', descending: true },
      },
    );
    expect(html).toMatch(/<form class="query" method="get" action="\/ada\/shop#table-viewer"/);
    expect(html).toContain(
      '<label for="table-search">Search this table</label><input type="search" id="table-search" name="q" value="lamp">',
    );
    // The sort and table ride along; filters fold in a details, open when any is set.
    expect(html).toContain('<input type="hidden" name="sort" value="id">');
    expect(html).toContain('<input type="hidden" name="order" value="desc">');
    expect(html).toContain('<details class="filters" open><summary>Filters (3)</summary>');
    expect(html).toMatch(
      /<label for="filter-1-min"><bdi>price<\/bdi> from<\/label><input type="text" inputmode="decimal" id="filter-1-min" name="min.price" value="1">/,
    );
    expect(html).toContain('name="max.price" value=""');
    expect(html).toMatch(
      /<label for="filter-3-min"><bdi>sold<\/bdi> from<\/label><input type="date"/,
    );
    expect(html).toMatch(
      /<label for="filter-4"><bdi>open<\/bdi> equals<\/label><select id="filter-4" name="eq.open"><option value="">any<\/option><option value="true" selected>true<\/option>/,
    );
    expect(html).toContain('<option value="S">S</option>');
    expect(html).toContain('name="has.note" value="x&quot;y"');
    expect(html).toContain('<a href="/ada/shop?table=prices#table-viewer">Clear</a>');
    expect(view()).not.toContain('>Clear<');
    // The same view as JSON, at its route.
    expect(html).toContain(
      '<a href="/ada/shop/rows?table=prices&amp;sort=id&amp;order=desc&amp;q=lamp&amp;min.price=1&amp;eq.open=true&amp;has.note=x%22y">This view as JSON</a>',
    );
  });

  it('pages First, Previous, Next and Last to the last row, saying which rows of how many', () => {
    const page = (offset: number, matching: number, total: number, rows: number) => ({
      table: 'prices',
      columns: [{ name: 'id', type: 'integer' }],
      rows: Array.from({ length: rows }, (_, index) => [offset + index + 1]),
      offset,
      matching,
      total,
    });
    const first = view({ page: page(0, 1_000_000, 1_000_000, 50) });
    expect(first).toContain('Rows 1–50 of 1,000,000.');
    expect(links(first)).toEqual({
      Next: '/ada/shop?table=prices&rows=50#table-viewer',
      Last: '/ada/shop?table=prices&rows=999950#table-viewer',
    });
    expect(first).toContain('<span class="off" aria-disabled="true">Previous</span>');
    const filtered = view({ page: page(100, 120, 1_000_000, 20) }, { offset: 100, search: 'a' });
    expect(filtered).toContain('Rows 101–120 of 120 matching (1,000,000 in all).');
    expect(links(filtered)).toEqual({
      First: '/ada/shop?table=prices&q=a#table-viewer',
      Previous: '/ada/shop?table=prices&q=a&rows=50#table-viewer',
    });
    // A lower bound while the hub counts: no Last till the count is whole.
    const counting = view(
      { page: { ...page(0, 10_051, 1_000_000, 50), atLeast: true } },
      { search: 'a' },
    );
    expect(counting).toContain(
      'Rows 1–50 of at least 10,051 matching (1,000,000 in all; still counting).',
    );
    expect(Object.keys(links(counting))).toEqual(['Next']);
    const beyond = view({ page: page(5000, 120, 120, 0) }, { offset: 5000 });
    expect(beyond).toContain('No rows there: the table has 120.');
    expect(links(beyond).Previous).toBe('/ada/shop?table=prices&rows=100#table-viewer');
    expect(view({ page: page(0, 0, 9, 0) }, { search: 'zz' })).toContain(
      'No rows match (9 in all).',
    );
    // From the CSV copy, no deeper than the hub reads.
    const deep = view({ engine: false, deepest: 10_000, page: page(0, 50_000, 50_000, 50) });
    expect(Object.keys(links(deep))).toEqual(['Next']);
    expect(deep).toContain('The download holds the rest.');
  });

  it("says each column's statistics: missing, distinct, range, a histogram in words, top values", () => {
    const numbers = statsHtml({
      name: 'price',
      type: 'number',
      missing: 3,
      distinct: 1200,
      min: 0,
      max: 99.5,
      histogram: [
        { from: 0, to: 50, count: 10 },
        { from: 50, to: 99.5, count: 30 },
      ],
    });
    expect(numbers).toContain('<div>3 missing · 1,200 distinct</div><div>0 – 99.5</div>');
    expect(numbers).toContain(
      'role="img" aria-label="Histogram of price: 2 bins from 0 to 99.5; the most rows, 30, from 50 to 99.5."',
    );
    // The bars are one path: one node whatever the bins.
    expect(numbers.match(/<path d="M0 28v-9h49.4v9zM50 28v-28h49.4v28z"\/>/g)).toHaveLength(1);
    const text = statsHtml({
      name: HOSTILE,
      type: 'string',
      missing: 0,
      distinct: 2,
      top: [
        { value: HOSTILE, count: 5 },
        { value: null, count: 1 },
      ],
    });
    expect(text).toContain(
      '<li><bdi>&lt;img src=x onerror=alert(1)&gt;&quot;&#39;\u202Eevil</bdi> (5)</li>',
    );
    expect(text).toContain('<li><bdi>missing</bdi> (1)</li>');
    const shown = view({
      stats: {
        table: 'prices',
        rows: 2,
        columns: [{ name: 'id', type: 'integer', missing: 0, distinct: 2, min: 1, max: 2 }],
      },
    });
    expect(shown).toContain(
      '<tr class="stats"><td class="stats"><div>0 missing · all values unique</div><div>1 – 2</div></td><td class="stats"></td>',
    );
  });

  it('escapes every name and value a publisher gives', () => {
    const html = tableViewer(
      {
        base: '/ada/shop',
        tables: [
          { name: HOSTILE, title: HOSTILE },
          { name: 'b', title: undefined },
        ],
        query: {
          table: HOSTILE,
          filters: [
            { column: HOSTILE, kind: 'contains', value: HOSTILE },
            // Kept by the form as a hidden input named after the column.
            { column: HOSTILE, kind: 'missing', present: false },
          ],
          search: HOSTILE,
          offset: 0,
          limit: 50,
        },
        fields: [{ name: HOSTILE, type: 'string', description: HOSTILE, values: undefined }],
        page: {
          table: HOSTILE,
          columns: [{ name: HOSTILE, type: 'string' }],
          rows: [[HOSTILE]],
          offset: 0,
          matching: 1,
          total: 1,
        },
        stats: undefined,
        engine: true,
      },
      queryParams,
    );
    expect(html).not.toContain('<img');
    expect(html).not.toMatch(/="[^"]*"'/);
    expect(html).not.toContain('onerror=alert(1)>');
    // Text keeps its own direction, and names are isolated from what is around them.
    expect(html).toContain('<td dir="auto">&lt;img');
    expect(html).toContain('<bdi>&lt;img');
    expect(html).toContain('href="/ada/shop?table=%3Cimg');
  });
});

/** A table `width` columns wide, 50 rows, with statistics: numbers, dates and text in turn. */
function wide(width: number, columns?: string, query: Partial<TableQuery> = {}): string {
  const types = ['integer', 'number', 'string', 'date'];
  const fields = Array.from({ length: width }, (_, index) => ({
    name: `montant_${String(index)}`,
    type: types[index % types.length] ?? 'string',
  }));
  const cell = (type: string, row: number): Cell =>
    type === 'integer'
      ? row * 1_000_003
      : type === 'number'
        ? row * 31.25
        : type === 'date'
          ? `2024-01-${String((row % 28) + 1).padStart(2, '0')}`
          : `category ${String(row % 13)}`;
  const stats = fields.map((field): ColumnStats => {
    const text = field.type === 'string';
    return {
      name: field.name,
      type: field.type,
      missing: 12,
      distinct: 953_281,
      ...(text
        ? {
            top: Array.from({ length: 10 }, (_, index) => ({
              value: `category ${String(index)}`,
              count: 1000 - index,
            })),
          }
        : {
            min: cell(field.type, 1),
            max: cell(field.type, 1000),
            histogram: Array.from({ length: 20 }, (_, index) => ({
              from: cell(field.type, index * 50),
              to: cell(field.type, index * 50 + 50),
              count: (index * 7919) % 1000,
            })),
          }),
    };
  });
  return tableViewer(
    {
      base: '/ada/wide',
      tables: [{ name: 'wide', title: undefined }],
      query: { table: 'wide', filters: [], offset: 0, limit: 50, ...query },
      fields,
      page: {
        table: 'wide',
        columns: fields,
        rows: Array.from({ length: 50 }, (_, row) => fields.map((field) => cell(field.type, row))),
        offset: 0,
        matching: 1_000_000,
        total: 1_000_000,
      },
      stats: { table: 'wide', rows: 1_000_000, columns: stats },
      engine: true,
      columns,
    },
    queryParams,
  );
}

const bytes = (html: string): number => Buffer.byteLength(html);
const decoded = (href: string | undefined) => (href ?? '').replace(/&amp;/g, '&');

describe('the table viewer (a page of bounded weight, that says its view)', () => {
  it('bounds the bytes a column costs, and shows 20 columns at a time whatever the width', () => {
    // Each column shown, with its header, statistics, filter and 50 cells: at most 3.1 KB (4 KB
    // before the histogram was one path; 3 KB before its missing values were a link).
    const ten = bytes(wide(10));
    const twenty = bytes(wide(20));
    const all = bytes(wide(300, 'all'));
    expect((twenty - ten) / 10).toBeLessThan(3_100);
    expect((all - twenty) / 280).toBeLessThan(3_100);
    // Past COLUMNS_SHOWN, the page weighs as 20 columns do, whatever the table's width.
    expect(bytes(wide(300))).toBeLessThan(twenty + 1_000);
    expect(bytes(wide(300))).toBeLessThan(62_000);
    const html = wide(300);
    expect(html.match(/<th scope="col"/g)).toHaveLength(COLUMNS_SHOWN);
    expect(html.match(/<tbody>(.*?)<\/tr>/s)?.[1]?.match(/<td/g)).toHaveLength(COLUMNS_SHOWN);
    expect(html.match(/name="(?:eq|has|min)\./g)).toHaveLength(COLUMNS_SHOWN);
    // The others on demand, the choice in the address.
    const line = /<p class="columns">(.*?)<\/p>/.exec(html)?.[1] ?? '';
    expect(line).toMatch(/^Columns 1–20 of 300 · /);
    const hrefs = Object.fromEntries(
      [...line.matchAll(/<a href="([^"]+)">([^<]+)<\/a>/g)].map((found): [string, string] => [
        found[2] ?? '',
        decoded(found[1]),
      ]),
    );
    expect(hrefs).toEqual({
      'Next columns': '/ada/wide?table=wide&cols=21#table-viewer',
      'Show all 300 columns': '/ada/wide?table=wide&cols=all#table-viewer',
    });
    expect(wide(300, 'all').match(/<th scope="col"/g)).toHaveLength(300);
    expect(wide(300, 'all')).toContain(
      'All 300 columns shown · <a href="/ada/wide?table=wide#table-viewer">Show 20 at a time</a>',
    );
    const next = wide(300, '21');
    expect(next).toContain('<bdi>montant_20</bdi>');
    expect(next).not.toContain('<bdi>montant_19</bdi>');
    expect(next).toContain(
      '<a href="/ada/wide?table=wide&amp;cols=1#table-viewer">Previous columns</a>',
    );
    // The links of the view keep the choice; the form sends it.
    expect(decoded(/<a id="page-next" href="([^"]+)"/.exec(next)?.[1])).toBe(
      '/ada/wide?table=wide&rows=50&cols=21#table-viewer',
    );
    expect(next).toContain('<input type="hidden" name="cols" value="21">');
    // The sorted and filtered columns are shown wherever they are, with their filters.
    const sorted = wide(300, undefined, {
      sort: { column: 'montant_299', descending: true },
      filters: [{ column: 'montant_150', kind: 'contains', value: 'x' }],
    });
    expect(sorted.match(/<th scope="col"/g)).toHaveLength(COLUMNS_SHOWN + 2);
    expect(sorted).toContain('aria-sort="descending"><a id="sort-299"');
    expect(sorted).toContain('name="has.montant_150" value="x"');
    expect(sorted).toContain('Columns 1–20 of 300, and the sorted or filtered ones · ');
    // A page of ten columns says nothing of columns.
    expect(wide(10)).not.toContain('class="columns"');
  });

  it('says above the table how it is sorted, filtered and searched, each with a link undoing it', () => {
    const html = view(
      {},
      {
        sort: { column: 'price', descending: true },
        search: 'lamp "x"',
        filters: [
          { column: 'price', kind: 'range', min: '1000', max: '25000.5' },
          { column: 'open', kind: 'equals', value: 'true' },
          { column: 'note', kind: 'contains', value: '<b>' },
        ],
      },
    );
    const line = /<p class="state">(.*?)<\/p>/.exec(html)?.[1] ?? '';
    // Before the table, after the form.
    expect(html.indexOf('<p class="state">')).toBeGreaterThan(html.indexOf('</form>'));
    expect(html.indexOf('<p class="state">')).toBeLessThan(html.indexOf('<table'));
    const words = line.replace(/ ?<a .*?<\/a>/g, '').replace(/<[^>]+>/g, '');
    expect(words).toBe(
      'Sorted by price, descending · price from 1,000 to 25,000.5 · open is true · note contains “&lt;b&gt;” · search “lamp &quot;x&quot;”',
    );
    const undo = Object.fromEntries(
      [
        ...line.matchAll(
          /<a class="undo" href="([^"]+)"><span aria-hidden="true">×<\/span><span class="hidden">([^<]+)<\/span><\/a>/g,
        ),
      ].map((found): [string, string] => [found[2] ?? '', decoded(found[1])]),
    );
    expect(undo).toEqual({
      'Remove the sort by price':
        '/ada/shop?table=prices&q=lamp+%22x%22&min.price=1000&max.price=25000.5&eq.open=true&has.note=%3Cb%3E#table-viewer',
      'Remove the filter on price':
        '/ada/shop?table=prices&sort=price&order=desc&q=lamp+%22x%22&eq.open=true&has.note=%3Cb%3E#table-viewer',
      'Remove the filter on open':
        '/ada/shop?table=prices&sort=price&order=desc&q=lamp+%22x%22&min.price=1000&max.price=25000.5&has.note=%3Cb%3E#table-viewer',
      'Remove the filter on note':
        '/ada/shop?table=prices&sort=price&order=desc&q=lamp+%22x%22&min.price=1000&max.price=25000.5&eq.open=true#table-viewer',
      'Remove the search':
        '/ada/shop?table=prices&sort=price&order=desc&min.price=1000&max.price=25000.5&eq.open=true&has.note=%3Cb%3E#table-viewer',
    });
    // The first view has no such line; nor has a hub without the engine.
    expect(view()).not.toContain('class="state"');
    expect(view({ engine: false, deepest: 10_000 }, { search: 'a' })).not.toContain(
      'class="state"',
    );
  });

  it('lists the most frequent values with those as frequent as the last, and says how many more', () => {
    const top = [
      { value: 'b', count: 5 },
      { value: 'a', count: 9 },
      { value: 'f', count: 3 },
      { value: 'e', count: 3 },
      { value: 'd', count: 4 },
      { value: 'c', count: 4 },
      { value: 'g', count: 2 },
    ];
    const html = statsHtml({ name: 'kind', type: 'string', missing: 0, distinct: 1204, top });
    const listed = [...html.matchAll(/<li><bdi>(\w+)<\/bdi> \((\d+)\)<\/li>/g)].map(
      (found) => `${found[1] ?? ''}${found[2] ?? ''}`,
    );
    // Equal counts in the order of their text, e (3) as frequent as f (3), the fifth.
    expect(listed).toEqual(['a9', 'b5', 'c4', 'd4', 'e3', 'f3']);
    expect(html).toContain('</ol><div>and 1,198 more values</div>');
    expect(statsHtml({ name: 'kind', type: 'string', missing: 0, distinct: 7, top })).toContain(
      '<div>and 1 more value</div>',
    );
    // An estimated distinct count makes an estimate of the rest.
    expect(
      statsHtml({
        name: 'kind',
        type: 'string',
        missing: 0,
        distinct: 1204,
        approximate: true,
        top,
      }),
    ).toContain('<div>and about 1,200 more values</div>');
    // All of them listed: nothing more to say.
    expect(
      statsHtml({ name: 'kind', type: 'string', missing: 0, distinct: 2, top: top.slice(0, 2) }),
    ).not.toContain('more value');
  });

  it('rounds an estimate, says when every value is unique, and lists no values each found once', () => {
    // An estimated distinct count: two significant figures, not seven.
    const estimate = statsHtml(
      { name: 'id', type: 'string', missing: 1, distinct: 1_777_999, approximate: true },
      undefined,
      { rows: 2_000_000 },
    );
    expect(estimate).toContain('<div>1 missing · ≈1.8 million distinct</div>');
    expect(
      statsHtml({ name: 'id', type: 'string', missing: 0, distinct: 953_281, approximate: true }),
    ).toContain('≈950,000 distinct');
    // Exactly as many distinct values as values present: all unique, and no list of ten
    // values each found once, nor "and about N more".
    const once = Array.from({ length: 10 }, (_, index) => ({
      value: `v${String(index)}`,
      count: 1,
    }));
    const unique = statsHtml(
      { name: 'id', type: 'string', missing: 3, distinct: 997, top: once },
      '?is.id=missing',
      { rows: 1000 },
    );
    expect(unique).toContain('3 missing</a> · all values unique</div>');
    expect(unique).not.toContain('<ol');
    expect(unique).not.toContain('more value');
    // Mostly unique: the same, the most frequent found once.
    const mostly = statsHtml(
      { name: 'id', type: 'string', missing: 0, distinct: 990, top: once },
      undefined,
      { rows: 1000 },
    );
    expect(mostly).toContain('990 distinct');
    expect(mostly).not.toContain('<ol');
    // An estimate is never said to be all unique.
    expect(
      statsHtml(
        { name: 'id', type: 'string', missing: 0, distinct: 1000, approximate: true },
        undefined,
        { rows: 1000 },
      ),
    ).toContain('≈1,000 distinct');
  });

  it('says a column past the first 200 has no statistics, its missing values a link away', () => {
    const fields = Array.from({ length: 201 }, (_, index) => ({
      name: `c${String(index)}`,
      type: 'integer',
    }));
    const html = view({
      fields,
      // The last columns, 182 to 201.
      columns: '182',
      stats: {
        table: 'prices',
        rows: 2,
        columns: fields.slice(0, 200).map((field) => ({ ...field, missing: 0, distinct: 2 })),
      },
    });
    expect(html).toMatch(
      /<td class="stats"><div>no statistics past the first 200 columns<\/div><div><a href="\?table=prices&amp;is\.c200=missing[^"]*">rows missing a value<\/a><\/div><\/td>/,
    );
    expect(html.match(/no statistics past/g)).toHaveLength(1);
  });

  it('writes every figure with its thousands separated: ranges and histograms as counts', () => {
    const html = statsHtml({
      name: 'id',
      type: 'integer',
      missing: 0,
      distinct: 953_281,
      min: 1,
      max: 1_000_000,
      histogram: [
        { from: 1, to: 500_000.5, count: 1500 },
        { from: 500_000.5, to: 1_000_000, count: 2500 },
      ],
    });
    expect(html).toContain('<div>0 missing · 953,281 distinct</div><div>1 – 1,000,000</div>');
    expect(html).toContain(
      'aria-label="Histogram of id: 2 bins from 1 to 1,000,000; the most rows, 2,500, from 500,000.5 to 1,000,000."',
    );
    // A year is a name, not a quantity; negative figures keep their sign.
    expect(
      statsHtml({ name: 'y', type: 'year', missing: 0, distinct: 2, min: 1999, max: 2024 }),
    ).toContain('<div>1999 – 2024</div>');
    expect(
      statsHtml({ name: 'n', type: 'number', missing: 0, distinct: 2, min: -12345.678, max: 0 }),
    ).toContain('<div>-12,345.678 – 0</div>');
  });
});
