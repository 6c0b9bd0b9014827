/**
 * The table viewer's JSON route, GET /<owner>/<dataset>/rows and /v/<N>/rows, on a hub of
 * this run's engines (SQLite and a folder; PostgreSQL and Swift's S3 under
 * --project postgres-swift, where the Parquet copy is materialized from the bucket).
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { viewerClient, type RowsAnswer } from '../../packages/hub/src/http/table-rows.js';
import { browserLogin, publish, tempDir, waitForState, withHub } from './helpers.js';

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ROWS = 3000;
/** A publisher's column name: quotes of both kinds, a dot, SQL and a parameter's characters. */
const WEIRD = `we"ird.col'); drop table t; --&x=1`;
const KINDS = ['tea', 'coffee', 'cocoa', '50%_off', 'mate'];
interface Row {
  id: number;
  kind: string;
  price: number | null;
  day: string;
  weird: number;
}
const rows: Row[] = Array.from({ length: ROWS }, (_, index) => ({
  id: index + 1,
  kind: `${KINDS[index % KINDS.length] ?? ''} ${String(index % 7)}`,
  price: index % 11 === 0 ? null : (index * 37) % 100,
  day: new Date(Date.UTC(2021, 0, 1 + (index % 365))).toISOString().slice(0, 10),
  weird: index % 4,
}));
const cells = (row: Row) => [row.id, row.kind, row.price, row.day, row.weird];

beforeAll(() => {
  mkdirSync(dir, { recursive: true });
  const quoted = `"${WEIRD.replaceAll('"', '""')}"`;
  const lines = [
    `id,kind,price,day,${quoted}`,
    ...rows.map(
      (row) =>
        `${String(row.id)},${row.kind},${row.price === null ? '' : String(row.price)},${row.day},${String(row.weird)}`,
    ),
  ];
  writeFileSync(join(dir, 'sales.csv'), `${lines.join('\n')}\n`);
  writeFileSync(join(dir, 'notes.csv'), 'note\nhello\n');
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({
      name: 'shop',
      resources: [
        {
          name: 'sales',
          path: 'sales.csv',
          schema: {
            fields: [
              { name: 'id', type: 'integer' },
              { name: 'kind', type: 'string' },
              { name: 'price', type: 'number' },
              { name: 'day', type: 'date' },
              { name: WEIRD, type: 'integer' },
            ],
          },
        },
        {
          name: 'notes',
          path: 'notes.csv',
          schema: { fields: [{ name: 'note', type: 'string' }] },
        },
      ],
    }),
  );
});

async function rowsOf(url: string, init?: RequestInit): Promise<RowsAnswer> {
  const response = await fetch(url, init);
  expect(response.status, await response.clone().text()).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as RowsAnswer;
}

describe('the table viewer’s JSON route', () => {
  it('answers pages of a table sorted, filtered and searched, with its statistics and neighbours', async () => {
    await withHub({}, async ({ url, runner }) => {
      const ada = await browserLogin(url, 'ada');
      const state = await waitForState(url, (await publish(url, ada, dir)).flowId);
      expect(state.state).toBe('SUCCEEDED');
      const base = `${url}/ada/shop/rows`;

      // The first table by default, in its order.
      const first = await rowsOf(base);
      expect(first.table).toBe('sales');
      expect(first.columns.map((column) => column.name)).toEqual([
        'id',
        'kind',
        'price',
        'day',
        WEIRD,
      ]);
      expect(first).toMatchObject({ offset: 0, matching: ROWS, total: ROWS, prev: null });
      expect(first.rows).toEqual(rows.slice(0, 50).map(cells));
      // The next page's address, followed to the last page.
      let page = first;
      let pages = 1;
      while (page.next) {
        page = await rowsOf(new URL(page.next, url).href);
        pages++;
      }
      expect(pages).toBe(ROWS / 50);
      expect(page.rows).toEqual(rows.slice(ROWS - 50).map(cells));
      expect(page.prev).toContain(`rows=${String(ROWS - 100)}`);

      // A filter on the publisher's strange column, sorted by price descending, searched.
      const params = new URLSearchParams([
        ['table', 'sales'],
        [`eq.${WEIRD}`, '2'],
        ['sort', 'price'],
        ['order', 'desc'],
        ['q', '%_'],
        ['size', '100'],
      ]);
      const filtered = await rowsOf(`${base}?${params.toString()}`);
      const want = rows
        .filter((row) => row.weird === 2 && row.kind.includes('%_'))
        .sort((a, b) => (b.price ?? -Infinity) - (a.price ?? -Infinity));
      expect(filtered.matching).toBe(want.length);
      expect(filtered.rows.map((row) => row[2])).toEqual(
        want.slice(0, 100).map((row) => row.price),
      );
      expect(filtered.rows.every((row) => row[4] === 2)).toBe(true);

      // Another table by name; refusals as JSON.
      expect((await rowsOf(`${base}?table=notes`)).rows).toEqual([['hello']]);
      for (const [address, status, message] of [
        ['?table=nope', 404, 'no table named "nope"'],
        ['?sort=nope', 400, '"sort" names no column of table "sales"'],
        [
          '?min.day=2021-02-30',
          400,
          '"min.day" must be a date as YYYY-MM-DD (its column is a date)',
        ],
        ['?size=101', 400, '"size" must be a whole number from 1 to 100'],
      ] as const) {
        const refused = await fetch(`${base}${address}`);
        expect(refused.status, address).toBe(status);
        expect(await refused.json(), address).toEqual({ error: message });
      }
      expect((await fetch(`${url}/ada/nothing/rows`)).status).toBe(404);

      // The statistics, once computed after publication; the answer's ETag then changes.
      await runner.idle();
      const etagBefore = (await fetch(base)).headers.get('etag');
      const withStats = await fetch(base);
      const answer = (await withStats.json()) as RowsAnswer;
      expect(answer.stats?.rows).toBe(ROWS);
      const price = answer.stats?.columns.find((column) => column.name === 'price');
      expect(price).toMatchObject({ missing: rows.filter((row) => row.price === null).length });
      expect(price?.histogram?.reduce((sum, bin) => sum + bin.count, 0)).toBe(
        rows.filter((row) => row.price !== null).length,
      );
      const etag = withStats.headers.get('etag') ?? '';
      expect(etag).toMatch(/^"r1-/);
      expect(etagBefore).toBe(etag);
      expect(withStats.headers.get('cache-control')).toBe('public, no-cache');
      // A conditional GET of the same query: 304, nothing queried; HEAD says the same.
      const again = await fetch(base, { headers: { 'if-none-match': etag } });
      expect(again.status).toBe(304);
      const head = await fetch(`${base}?table=sales`, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('etag')).toBe(etag);
      // A revision's own address: kept a year once its statistics are there.
      const versioned = await fetch(`${url}/ada/shop/v/1/rows?sort=id&order=desc&size=1`);
      expect(versioned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(((await versioned.json()) as RowsAnswer).rows).toEqual([cells(rows.at(-1) as Row)]);
      expect((await fetch(`${url}/ada/shop/v/2/rows`)).status).toBe(404);
      // A refusal at a revision's own address is no answer to keep.
      const refusal = await fetch(`${url}/ada/shop/v/1/rows?size=0`);
      expect(refusal.status).toBe(400);
      expect(refusal.headers.get('cache-control')).toBe('private, no-cache');
      expect(refusal.headers.get('etag')).toBeNull();
    });
  });

  it('reads a Parquet copy too large for the copy cache where it was made', async () => {
    await withHub({ derivedCacheBytes: 1 }, async ({ url, hub }) => {
      const ada = await browserLogin(url, 'ada');
      expect((await waitForState(url, (await publish(url, ada, dir)).flowId)).state).toBe(
        'SUCCEEDED',
      );
      const page = await rowsOf(`${url}/ada/shop/rows?sort=price&order=desc&size=3`);
      const want = [...rows].sort((a, b) => (b.price ?? -1) - (a.price ?? -1)).slice(0, 3);
      expect(page.rows).toEqual(want.map(cells));
      // Not kept by the cache: made in the scratch folder and read there, not put in the
      // viewer's own folder.
      expect(hub.copies.made).toBeGreaterThan(0);
      const own = join(hub.tmpDir, 'viewer', 'files');
      expect(existsSync(own) ? readdirSync(own) : []).toEqual([]);
    });
  });

  it('answers 503 with Retry-After past its queue, and again once a turn is free', async () => {
    await withHub({ viewer: { queries: 1, queued: 1 } }, async ({ url, hub, runner }) => {
      const ada = await browserLogin(url, 'ada');
      expect((await waitForState(url, (await publish(url, ada, dir)).flowId)).state).toBe(
        'SUCCEEDED',
      );
      await runner.idle();
      // One query holds the only turn, another the small tables' lane, another waits for
      // them: the next is refused at once.
      const stop = new AbortController();
      const hold = (small: boolean) =>
        hub.viewer.engine
          .run(
            (connection) => connection.run('SELECT count(*) FROM range(100000000000)'),
            stop.signal,
            undefined,
            small ? { key: 'address:elsewhere', small } : undefined,
          )
          .catch((error: unknown) => error);
      const slow = [hold(false), hold(true)];
      const waiting = hub.viewer.engine.run(() => Promise.resolve('waited'), undefined);
      const refused = await fetch(`${url}/ada/shop/rows?size=2`);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('2');
      expect(((await refused.json()) as { error: string }).error).toMatch(/try again in a moment/);
      stop.abort();
      await Promise.all(slow);
      expect(await waiting).toBe('waited');
      expect((await rowsOf(`${url}/ada/shop/rows?size=2`)).rows).toHaveLength(2);
    });
  });

  it('refuses a parameter it does not take, and filters missing values', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      expect((await waitForState(url, (await publish(url, ada, dir)).flowId)).state).toBe(
        'SUCCEEDED',
      );
      const base = `${url}/ada/shop/rows`;
      for (const [address, message] of [
        [
          'EQ.price=1',
          '"EQ.price" is not a parameter of a table\'s view (did you mean "eq.price"?)',
        ],
        [
          'eq_price=1',
          '"eq_price" is not a parameter of a table\'s view (did you mean "eq.price"?)',
        ],
        ['Sort=price', '"Sort" is not a parameter of a table\'s view (did you mean "sort"?)'],
        ['limit=5', '"limit" is not a parameter of a table\'s view (did you mean "size"?)'],
        ['offset=10', '"offset" is not a parameter of a table\'s view (did you mean "rows"?)'],
        ['foo=bar', '"foo" is not a parameter of a table\'s view'],
      ] as const) {
        const refused = await fetch(`${base}?${address}`);
        expect(refused.status, address).toBe(400);
        const { error } = (await refused.json()) as { error: string };
        expect(error.slice(0, message.length), address).toBe(message);
        // The page shows its 400 view for the same address.
        expect((await fetch(`${url}/ada/shop?${address}`)).status, address).toBe(400);
      }
      // ?v= names the revision at /rows.
      expect((await fetch(`${base}?v=1&size=1`)).status).toBe(200);
      // jQuery's cache-buster `_` and the page's `cols` are taken and ignored, the answer and
      // its ETag those of the address without them.
      const plain = await fetch(`${base}?size=2`);
      for (const extra of ['_=1700000000000', 'cols=price', `_=${String(Date.now())}&cols=`]) {
        const busted = await fetch(`${base}?size=2&${extra}`);
        expect(busted.status, extra).toBe(200);
        expect(busted.headers.get('etag'), extra).toBe(plain.headers.get('etag'));
      }
      // At a revision's own address `v` is refused, saying why.
      const twice = await fetch(`${url}/ada/shop/v/1/rows?v=1`);
      expect(twice.status).toBe(400);
      expect(((await twice.json()) as { error: string }).error).toBe(
        '"v" is not taken at a revision\'s own address: its path names the revision',
      );
      // An order without its sort, as other half-given parameters are.
      const unsorted = await fetch(`${base}?order=desc`);
      expect(unsorted.status).toBe(400);
      const missing = await rowsOf(`${base}?is.price=missing&size=100`);
      const none = rows.filter((row) => row.price === null);
      expect(missing.matching).toBe(none.length);
      expect(missing.rows.map((row) => row[0])).toEqual(none.slice(0, 100).map((row) => row.id));
      const present = await rowsOf(`${base}?is.price=present&size=1`);
      expect(present.matching).toBe(ROWS - none.length);
      expect(present.next).toContain('is.price=present');
    });
  });

  it('types a table without a schema as its Parquet copy does, on the page and at /rows alike', async () => {
    const raw = join(dir, 'raw');
    mkdirSync(raw, { recursive: true });
    writeFileSync(
      join(raw, 'raw.csv'),
      `a,b,c\n${Array.from({ length: 30 }, (_, i) => `${String(i + 1)},${i % 3 === 0 ? '' : `w${String(i)}`},2020-01-${String(i + 1).padStart(2, '0')}`).join('\n')}\n`,
    );
    writeFileSync(
      join(raw, 'datapackage.json'),
      JSON.stringify({ name: 'raw', resources: [{ name: 'raw', path: 'raw.csv' }] }),
    );
    await withHub({}, async ({ url, runner }) => {
      const ada = await browserLogin(url, 'ada');
      expect((await waitForState(url, (await publish(url, ada, raw)).flowId)).state).toBe(
        'SUCCEEDED',
      );
      await runner.idle();
      const sorted = await rowsOf(
        `${url}/ada/raw/rows?sort=a&order=desc&min.c=2020-01-10&is.b=missing`,
      );
      expect(sorted.columns).toEqual([
        { name: 'a', type: 'integer' },
        { name: 'b', type: 'string' },
        { name: 'c', type: 'date' },
      ]);
      expect(sorted.rows).toEqual([
        [28, null, '2020-01-28'],
        [25, null, '2020-01-25'],
        [22, null, '2020-01-22'],
        [19, null, '2020-01-19'],
        [16, null, '2020-01-16'],
        [13, null, '2020-01-13'],
        [10, null, '2020-01-10'],
      ]);
      // The statistics say the same types.
      const stats = (await rowsOf(`${url}/ada/raw/rows`)).stats;
      expect(stats?.columns.map((column) => column.type)).toEqual(['integer', 'string', 'date']);
      // The page offers the same view, and its JSON link answers it.
      const page = await fetch(`${url}/ada/raw?sort=a&order=desc&min.c=2020-01-10`);
      expect(page.status).toBe(200);
      const html = await page.text();
      const link = /href="([^"]*\/rows\?[^"]*)">This view as JSON/.exec(html)?.[1];
      expect(link).toBeDefined();
      const json = await rowsOf(`${url}${(link ?? '').replaceAll('&amp;', '&')}`);
      expect(json.rows[0]).toEqual([30, 'w29', '2020-01-30']);
      // A column's missing values counted link to its rows that miss one, which the form keeps.
      const missing = /href="(\?[^"]*is\.b=missing[^"]*)">10 missing</.exec(html)?.[1];
      expect(missing).toBeDefined();
      const only = await (
        await fetch(`${url}/ada/raw${(missing ?? '').replaceAll('&amp;', '&')}`)
      ).text();
      expect(only).toContain('<bdi>b</bdi> is missing');
      expect(only).toContain('<input type="hidden" name="is.b" value="missing">');
      expect(only).toMatch(/Rows 1–7 of 7 matching/);
    });
  });

  it('shows the published revision when the newest is private and failed, page and rows alike', async () => {
    const bad = join(dir, 'bad');
    mkdirSync(bad, { recursive: true });
    writeFileSync(join(bad, 'sales.csv'), 'id,kind,price,day\nnot a number,x,1,2021-01-01\n');
    writeFileSync(
      join(bad, 'datapackage.json'),
      JSON.stringify({
        name: 'shop',
        resources: [
          {
            name: 'sales',
            path: 'sales.csv',
            schema: {
              fields: [
                { name: 'id', type: 'integer' },
                { name: 'kind', type: 'string' },
                { name: 'price', type: 'number' },
                { name: 'day', type: 'date' },
              ],
            },
          },
        ],
      }),
    );
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const bob = await browserLogin(url, 'bob');
      expect((await waitForState(url, (await publish(url, ada, dir)).flowId)).state).toBe(
        'SUCCEEDED',
      );
      const failed = await publish(url, ada, bad, { findability: 'private' });
      expect((await waitForState(url, failed.flowId, ada)).state).toBe('FAILED');
      for (const [who, headers] of [
        ['anyone', {}],
        ['bob', { 'Auth-Token': bob }],
        ['ada', { 'Auth-Token': ada }],
      ] as const) {
        const rows = await fetch(`${url}/ada/shop/rows?size=1`, { headers });
        expect(rows.status, who).toBe(200);
        const page = await fetch(`${url}/ada/shop`, { headers });
        expect(page.status, who).toBe(200);
        const html = await page.text();
        // Others see the published revision only, not the private one's failure.
        if (who !== 'ada') expect(html, who).not.toContain('not a number');
      }
    });
  });

  it('tells clients apart for their fair share: a local proxy’s X-Forwarded-For, else the peer', async () => {
    const asking = (peer: string, forwarded?: string) =>
      viewerClient(
        {} as never,
        {
          raw: {
            headers: forwarded === undefined ? {} : { 'x-forwarded-for': forwarded },
            socket: { remoteAddress: peer },
          },
          route: '/:owner/:dataset/rows',
          url: new URL('http://hub.test/ada/shop/rows'),
        } as never,
      );
    expect(await asking('203.0.113.9')).toBe('address:203.0.113.9');
    // A peer elsewhere could write any X-Forwarded-For: its own address counts.
    expect(await asking('203.0.113.9', '198.51.100.1')).toBe('address:203.0.113.9');
    // A proxy on this machine: the client it saw, the last entry.
    expect(await asking('127.0.0.1', '10.1.1.1, 198.51.100.1')).toBe('address:198.51.100.1');
    expect(await asking('::ffff:127.0.0.1', '198.51.100.2')).toBe('address:198.51.100.2');
    expect(await asking('::1')).toBe('address:::1');
  });

  it('is read into pandas as docs/protocol.md shows, following next', async (context) => {
    // The first Python with pandas (python3-pandas in Debian); without one, skipped unless CI.
    const python = ['python3', '/usr/bin/python3'].find(
      (program) => spawnSync(program, ['-c', 'import pandas']).status === 0,
    );
    if (!python) {
      if (process.env.CI)
        throw new Error('no python3 with pandas (python3-pandas) on this machine');
      context.skip();
      return;
    }
    const docs = readFileSync(join(import.meta.dirname, '../../docs/protocol.md'), 'utf8');
    const example = /A filtered view as a pandas data frame[^]*?```python\n([^]*?)```/.exec(
      docs,
    )?.[1];
    expect(example).toBeDefined();
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      expect((await waitForState(url, (await publish(url, ada, dir)).flowId)).state).toBe(
        'SUCCEEDED',
      );
      const script = `${(example ?? '').replace('https://hub.example', url)}
print(json.dumps({"rows": len(table), "columns": list(table.columns), "ids": table["id"].tolist()}))
`;
      const { stdout } = await promisify(execFile)(python, ['-c', script]);
      const read = JSON.parse(stdout) as { rows: number; columns: string[]; ids: number[] };
      const want = rows.filter((row) => row.price !== null && row.price >= 10);
      expect(read.columns).toEqual(['id', 'kind', 'price', 'day', WEIRD]);
      expect(read.rows).toBe(want.length);
      expect(read.ids).toEqual(want.map((row) => row.id));
    });
  });

  it('has the page’s permissions: a private dataset’s rows are not there for others', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const mallory = await browserLogin(url, 'mallory');
      const { flowId } = await publish(url, ada, dir, { findability: 'private' });
      expect((await waitForState(url, flowId, ada)).state).toBe('SUCCEEDED');
      for (const address of ['/ada/shop/rows', '/ada/shop/v/1/rows?table=notes']) {
        expect((await fetch(`${url}${address}`)).status, address).toBe(404);
        const other = await fetch(`${url}${address}`, { headers: { 'Auth-Token': mallory } });
        expect(other.status, address).toBe(404);
        expect(await other.json()).toEqual({ error: 'not found' });
        const own = await fetch(`${url}${address}`, { headers: { 'Auth-Token': ada } });
        expect(own.status, address).toBe(200);
        expect(own.headers.get('cache-control')).toBe('private, no-store');
      }
      // The page says the same.
      expect((await fetch(`${url}/ada/shop`)).status).toBe(404);
    });
  });
});
