import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Hub } from '../../packages/hub/src/context.js';
import { writeRichPackage } from '../helpers/rich-package.js';
import {
  browserLogin,
  EXAMPLES,
  publish,
  runData,
  tempDir,
  waitForState,
  withHub,
} from './helpers.js';

/** Datasets made straight in the metadata, published with the figures a listing shows. */
async function listed(
  hub: Hub,
  owner: string,
  how: number,
  findability: 'published' | 'private' = 'published',
) {
  const user = await hub.store.userForIdentity({
    provider: 'local',
    subject: owner,
    username: owner,
    email: `${owner}@example.org`,
    name: owner,
  });
  for (let index = 0; index < how; index++) {
    const dataset = `set-${String(index).padStart(2, '0')}`;
    const made = await hub.store.createRevision({
      ownerid: user.userid,
      dataset,
      findability,
      spec: '{}',
      pipelines: '[]',
      requestId: null,
      limits: { maxDatasets: 1000, maxStorageBytes: 1e12 },
    });
    if (!('revision' in made)) throw new Error('refused');
    const revision = { ownerid: user.userid, dataset, revision: made.revision };
    await hub.store.updateRevision(revision, { state: 'SUCCEEDED', descriptor: '{}' });
    await hub.store.publish(revision, {
      title: `Set ${String(index)}`,
      description: null,
      bytes: (index + 1) * 1000,
      rows: 100 - index,
      license: 'CC0-1.0',
    });
    // Each a millisecond newer than the one before: listed newest first.
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  return user;
}

const titles = (html: string): string[] =>
  [...html.matchAll(/<h2 class="title"><a href="[^"]+">([^<]+)<\/a>/g)].map(
    (found) => found[1] ?? '',
  );

async function page(url: string, token?: string): Promise<{ status: number; html: string }> {
  const response = await fetch(url, { headers: token ? { 'Auth-Token': token } : {} });
  return { status: response.status, html: await response.text() };
}

describe('listings: home, search and owner pages', () => {
  it('sort by update, name, size and rows, and page twenty at a time', async () => {
    await withHub({}, async ({ url, hub }) => {
      await listed(hub, 'bob', 23);
      const home = await page(`${url}/`);
      expect(home.html).toContain('23 datasets');
      expect(titles(home.html)).toHaveLength(20);
      expect(titles(home.html)[0]).toBe('Set 22');
      expect(home.html).toContain('Page 1 of 2');
      expect(home.html).toMatch(/23.0 kB · 78 rows · CC0-1\.0 · updated \d{4}-\d\d-\d\d/);
      const second = await page(`${url}/?page=2`);
      expect(titles(second.html)).toEqual(['Set 2', 'Set 1', 'Set 0']);
      expect(titles((await page(`${url}/?sort=name`)).html).slice(0, 2)).toEqual([
        'Set 0',
        'Set 1',
      ]);
      expect(titles((await page(`${url}/?sort=size`)).html)[0]).toBe('Set 22');
      expect(titles((await page(`${url}/?sort=rows`)).html)[0]).toBe('Set 0');
      // Links keep the sort and the query.
      expect((await page(`${url}/?sort=size`)).html).toContain('href="/?sort=size&amp;page=2"');
      const search = await page(`${url}/?q=set&sort=name&page=2`);
      expect(titles(search.html)).toEqual(['Set 20', 'Set 21', 'Set 22']);
      for (const bad of ['?sort=bogus', '?page=0', '?page=x', '?sort=']) {
        expect((await page(`${url}/${bad}`)).status).toBe(400);
      }
    });
  });

  it('an owner page lists private and unlisted datasets to their signed-in owner only', async () => {
    await withHub({}, async ({ url, hub }) => {
      const token = await browserLogin(url, 'carol');
      await listed(hub, 'carol', 2, 'private');
      await listed(hub, 'dave', 1);
      const anonymous = await page(`${url}/carol`);
      expect(anonymous.status).toBe(200);
      expect(titles(anonymous.html)).toEqual([]);
      expect(anonymous.html).toContain('carol has no dataset to show');
      const own = await page(`${url}/carol`, token);
      expect(titles(own.html)).toEqual(['Set 1', 'Set 0']);
      expect(own.html).toContain('<span class="badge wait">private</span>');
      expect(titles((await page(`${url}/`)).html)).toEqual(['Set 0']);
      expect(titles((await page(`${url}/`, token)).html)).toHaveLength(3);
      expect(titles((await page(`${url}/dave`, token)).html)).toEqual(['Set 0']);
      expect((await page(`${url}/nobody`)).status).toBe(404);
    });
  });
});

describe('the dataset page', () => {
  it('shows the facts, files, schema, views, rendered README, preview pages and history', async () => {
    const dir = tempDir();
    try {
      writeRichPackage(dir);
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        const env = { DATA_API: url, DATA_TOKEN: jwt };
        expect((await runData(['publish', dir], { env })).code).toBe(0);
        const { status, html } = await page(`${url}/ada/rainfall`);
        expect(status).toBe(200);
        for (const fact of [
          'Creative Commons Attribution 4.0',
          'href="https://creativecommons.org/licenses/by/4.0/"',
          'Met office',
          'Ada Lovelace (author)',
          'rain, weather',
          '1.2.0',
          '<dd>45</dd>',
        ])
          expect(html).toContain(fact);
        // Files: the original, its copies and the zip, each answering.
        for (const link of [
          '/ada/rainfall/r/rain.csv',
          '/ada/rainfall/r/rain.json',
          '/ada/rainfall/r/rainfall_zip.zip',
        ]) {
          expect(html).toContain(`href="${link}"`);
          expect((await fetch(`${url}${link}`)).status).toBe(200);
        }
        expect(html).toContain('data-copy="data get ada/rainfall"');
        // The schema, with types, descriptions, constraints and keys.
        expect(html).toContain(
          '<code>rain_mm</code></th><td>number</td><td>Rain in millimetres</td><td>minimum 0</td>',
        );
        expect(html).toContain('Primary key: <code>month</code>');
        // The view, drawn on the server.
        expect(html).toMatch(
          /<svg[^>]+role="img" aria-label="Rain by month\. Line chart of rain_mm by month, 45 points/,
        );
        expect(html).toMatch(/<polyline points="[0-9., ]+"/);
        // The README, rendered, its raw HTML shown as text and its script links dropped.
        expect(html).toContain('<h1>Monthly rainfall</h1>');
        expect(html).toContain('<strong>three</strong>');
        expect(html).toContain('&lt;script&gt;');
        expect(html).not.toMatch(/<script>document/);
        expect(html).not.toMatch(/<img[^>]+onerror/);
        expect(html).not.toMatch(/href="(javascript|data):/i);
        expect(html).toContain('<table>\n<thead>\n<tr>\n<th scope="col">station</th>');
        // The table: its first 50 rows from the preview, then rows further on; an older link
        // names the table by its index.
        expect(html).toContain('Rows 1–45 of 45');
        const next = await page(`${url}/ada/rainfall?table=0&rows=40`);
        expect(next.html).toContain('Rows 41–45 of 45');
        expect(next.html).toMatch(/<time datetime="2023-09">2023-09<\/time>/);
        expect(next.html).not.toMatch(/>Next<\/a>/);
        expect((await page(`${url}/ada/rainfall?table=rain&rows=40`)).html).toContain(
          'Rows 41–45 of 45',
        );
        expect((await page(`${url}/ada/rainfall?table=x`)).status).toBe(400);
        // However deep a page is asked for, the hub reads no further than 10,000 rows.
        const deep = await page(`${url}/ada/rainfall?table=0&rows=999999999999`);
        expect(deep.status).toBe(200);
        expect(deep.html).toContain('No rows there: the table has 45.');
        expect(html).toMatch(/<h2>History<\/h2>.*<a href="\/ada\/rainfall\/v\/1">1<\/a>/s);
        expect(html).toContain('Every resource passed validation');
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('draws a chart over dates or numbers in the order of x, whatever the order of the rows', async () => {
    const dir = tempDir();
    try {
      // Rows out of order: by date (written day first) and by a number whose text sorts apart.
      writeFileSync(
        join(dir, 'days.csv'),
        'day,t\n03.01.2024,3\n01.01.2024,1\n10.02.2023,0\n02.01.2024,2\n',
      );
      writeFileSync(join(dir, 'sizes.csv'), 'n,v\n10,2\n9,1\n100,3\n');
      const view = (name: string, group: string, series: string) => ({
        name,
        title: name,
        resources: [name],
        specType: 'simple',
        spec: { type: 'line', group, series: [series] },
      });
      writeFileSync(
        join(dir, 'datapackage.json'),
        JSON.stringify({
          name: 'ordered',
          resources: [
            {
              name: 'days',
              path: 'days.csv',
              schema: {
                fields: [
                  { name: 'day', type: 'date', format: '%d.%m.%Y' },
                  { name: 't', type: 'number' },
                ],
              },
            },
            {
              name: 'sizes',
              path: 'sizes.csv',
              schema: {
                fields: [
                  { name: 'n', type: 'integer' },
                  { name: 'v', type: 'number' },
                ],
              },
            },
          ],
          views: [view('days', 'day', 't'), view('sizes', 'n', 'v')],
        }),
      );
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        expect((await waitForState(url, (await publish(url, jwt, dir)).flowId)).state).toBe(
          'SUCCEEDED',
        );
        const { html } = await page(`${url}/ada/ordered`);
        const charts = [...html.matchAll(/<figure class="chart">(.*?)<\/figure>/gs)].map(
          (chart) => chart[1] ?? '',
        );
        expect(charts).toHaveLength(2);
        for (const [chart, first, last] of [
          // The x axis's ticks: calendar months for the dates, round numbers for the sizes.
          [charts[0] ?? '', 'Apr 2023', 'Jan 2024'],
          [charts[1] ?? '', '0', '100'],
        ] as const) {
          const points = (/<polyline points="([^"]+)"/.exec(chart)?.[1] ?? '')
            .split(' ')
            .map((point) => point.split(',').map(Number));
          // Left to right, each value higher than the one before (the SVG's y grows down).
          const ys = points.map(([, y]) => y ?? 0);
          expect(ys).toEqual([...ys].sort((a, b) => b - a));
          expect(new Set(ys).size).toBe(ys.length);
          const labels = [
            ...chart.matchAll(
              /<text x="[\d.]+" y="\d+" text-anchor="(?:start|end|middle)">([^<]*)<\/text>/g,
            ),
          ].map((label) => label[1]);
          expect([labels[0], labels.at(-1)]).toEqual([first, last]);
        }
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('shows a failed revision with its errors grouped by resource and type', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const env = { DATA_API: url, DATA_TOKEN: jwt };
      expect((await runData(['publish', join(EXAMPLES, 'cities')], { env })).code).toBe(0);
      const broken = tempDir();
      try {
        writeRichPackage(broken, 'world-cities');
        writeFileSync(
          join(broken, 'data', 'rain.csv'),
          'month,rain_mm,days\n2020-01,-1,x\n2020-01,2,y\n',
        );
        // Checked by the hub only: the client would refuse it before uploading.
        const { flowId } = await publish(url, jwt, broken);
        expect((await waitForState(url, flowId)).state).toBe('FAILED');
      } finally {
        rmSync(broken, { recursive: true, force: true });
      }
      const { html } = await page(`${url}/ada/world-cities`, jwt);
      expect(html).toContain('The latest publication failed.');
      expect(html).toMatch(
        /<h3>rain<\/h3><ul class="errors"><li><code>constraint-error<\/code>: 1 error/,
      );
      expect(html).toMatch(/<code>type-error<\/code>: 2 errors/);
      expect(html).toMatch(/<code>primary-key<\/code>: 1 error/);
      // The published revision is still what the page offers.
      expect(html).toContain('href="/ada/world-cities/r/cities.csv"');
    });
  });
});
