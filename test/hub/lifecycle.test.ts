import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserLogin, EXAMPLES, publish, waitForState, withHub } from './helpers.js';

const CITIES = join(EXAMPLES, 'cities');

describe('revisions', () => {
  it('gives two publishes of one dataset at once two consistent revisions', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const [first, second] = await Promise.all([
        publish(url, jwt, CITIES),
        publish(url, jwt, CITIES),
      ]);
      const ids = [first.flowId, second.flowId].map((id) => Number(id.split('/').pop())).sort();
      expect(ids).toEqual([1, 2]);
      for (const flow of [first, second])
        expect((await waitForState(url, flow.flowId)).state).toBe('SUCCEEDED');
      const latest = (await (
        await fetch(`${url}/source/${first.userid}/world-cities/latest`)
      ).json()) as { id: string; state: string };
      expect(latest).toMatchObject({ id: `${first.userid}/world-cities/2`, state: 'SUCCEEDED' });
      for (const version of [1, 2]) {
        const response = await fetch(
          `${url}/ada/world-cities/datapackage.json?v=${String(version)}`,
        );
        expect(response.status).toBe(200);
      }
      expect((await fetch(`${url}/ada/world-cities/datapackage.json?v=3`)).status).toBe(404);
    });
  });

  it('uploads only what the raw store lacks', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      expect((await publish(url, jwt, CITIES)).uploads).toBe(3);
      expect((await publish(url, jwt, CITIES)).uploads).toBe(0);
    });
  });

  it('finishes a revision left in progress by a crash, after a restart', async () => {
    const dataDir = join(tmpdir(), `hub-crash-${String(process.pid)}-${String(Date.now())}`);
    const { flowId, jwt } = await withHub(
      {
        dataDir,
        hooks: { afterStep: (step) => (step === 'validate' ? 'halt' : undefined) },
        // The revision is taken over once the stopped worker's lease runs out.
        pipeline: { leaseMs: 600 },
      },
      async ({ url, runner }) => {
        const token = await browserLogin(url);
        const published = await publish(url, token, CITIES);
        await runner.idle();
        const status = (await (await fetch(`${url}/source/${published.flowId}`)).json()) as {
          state: string;
        };
        expect(status.state).toBe('INPROGRESS');
        return { flowId: published.flowId, jwt: token };
      },
    );
    await withHub({ dataDir }, async ({ url }) => {
      const resumed = await waitForState(url, flowId);
      expect(resumed.error_log).toEqual([]);
      expect(resumed.state).toBe('SUCCEEDED');
      const csv = Buffer.from(
        await (await fetch(`${url}/ada/world-cities/r/cities.csv`)).arrayBuffer(),
      );
      expect(csv.equals(readFileSync(join(CITIES, 'data/cities.csv')))).toBe(true);
      expect(jwt).not.toBe('');
    });
  });

  it('answers 404 for unknown revisions and datasets', async () => {
    await withHub({}, async ({ url }) => {
      expect((await fetch(`${url}/source/nobody/nothing/1`)).status).toBe(404);
      expect((await fetch(`${url}/nobody/nothing/datapackage.json`)).status).toBe(404);
    });
  });
});

describe('read endpoints', () => {
  it('serves files with type, length, ETag, conditional GET and byte ranges', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await waitForState(url, (await publish(url, jwt, CITIES)).flowId);
      const original = readFileSync(join(CITIES, 'data/cities.csv'));
      const full = await fetch(`${url}/ada/world-cities/r/1.csv`);
      expect(full.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(Number(full.headers.get('content-length'))).toBe(original.length);
      const etag = full.headers.get('etag') ?? '';
      expect(etag).toMatch(/^".+"$/);
      await full.arrayBuffer();
      expect(
        (await fetch(`${url}/ada/world-cities/r/1.csv`, { headers: { 'If-None-Match': etag } }))
          .status,
      ).toBe(304);
      const part = await fetch(`${url}/ada/world-cities/r/1.csv`, {
        headers: { Range: 'bytes=10-19' },
      });
      expect(part.status).toBe(206);
      expect(part.headers.get('content-range')).toBe(`bytes 10-19/${String(original.length)}`);
      expect(Buffer.from(await part.arrayBuffer()).equals(original.subarray(10, 20))).toBe(true);
      const tail = await fetch(`${url}/ada/world-cities/r/1.csv`, {
        headers: { Range: 'bytes=-5' },
      });
      expect(Buffer.from(await tail.arrayBuffer()).equals(original.subarray(-5))).toBe(true);
      expect(
        (await fetch(`${url}/ada/world-cities/r/1.csv`, { headers: { Range: 'bytes=999999-' } }))
          .status,
      ).toBe(416);
      // No copy of a table in a format the hub does not derive.
      expect((await fetch(`${url}/ada/world-cities/r/1.xlsx`)).status).toBe(404);
      expect((await fetch(`${url}/ada/world-cities/r/7.csv`)).status).toBe(404);
    });
  });

  it('serves a small file changed on disk as it is now, not as it was', async () => {
    await withHub({}, async ({ url, hub }) => {
      const jwt = await browserLogin(url);
      await waitForState(url, (await publish(url, jwt, CITIES)).flowId);
      const bytes = readFileSync(join(CITIES, 'data/cities.csv'));
      const key = `${createHash('md5').update(bytes).digest('hex')}.csv`;
      // The test stands in for something outside the hub that replaces the stored bytes.
      const get = async () => (await fetch(`${url}/ada/world-cities/r/1.csv`)).text();
      const before = bytes.toString('utf8');
      expect([await get(), await get()]).toEqual([before, before]);
      const after = before.toUpperCase();
      expect(after.length).toBe(before.length);
      await hub.storage.putText(`objects/${key}`, after, 'text/csv');
      expect(await get()).toBe(after);
    });
  });

  it('hides private datasets from everyone but their owner', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const other = await browserLogin(url, 'grace');
      await waitForState(
        url,
        (await publish(url, jwt, CITIES, { findability: 'private' })).flowId,
        jwt,
      );
      expect((await fetch(`${url}/ada/world-cities/datapackage.json`)).status).toBe(404);
      expect(
        (await fetch(`${url}/ada/world-cities/r/0.csv`, { headers: { 'Auth-Token': other } }))
          .status,
      ).toBe(404);
      const owned = await fetch(`${url}/ada/world-cities/r/0.csv`, {
        headers: { 'Auth-Token': jwt },
      });
      expect(owned.status).toBe(200);
      // A cache in front of the hub must not keep it: the token is in a header of our own.
      expect(owned.headers.get('cache-control')).toBe('private, no-store');
      expect((await fetch(`${url}/ada/world-cities`)).status).toBe(404);
      const search = async (token?: string) =>
        (
          (await (
            await fetch(
              `${url}/metastore/search?q=%22cities%22`,
              token ? { headers: { 'Auth-Token': token } } : {},
            )
          ).json()) as { summary: { total: number } }
        ).summary.total;
      expect(await search()).toBe(0);
      expect(await search(other)).toBe(0);
      expect(await search(jwt)).toBe(1);
      await waitForState(url, (await publish(url, jwt, CITIES, { dataset: 'open' })).flowId);
      for (const path of ['datapackage.json', 'r/0.csv'])
        expect((await fetch(`${url}/ada/open/${path}`)).headers.get('cache-control')).toBe(
          'public, no-cache',
        );
      // Pages and API answers depend on who asks: no shared cache keeps them.
      for (const path of ['/ada/open', '/', '/metastore/search?q=%22x%22'])
        expect((await fetch(`${url}${path}`)).headers.get('cache-control')).toBe(
          'private, no-cache',
        );
    });
  });

  it('finds datasets by the words of their name, title and description, and by a word begun', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await waitForState(url, (await publish(url, jwt, CITIES)).flowId);
      await waitForState(url, (await publish(url, jwt, join(EXAMPLES, 'sales-v2'))).flowId);
      const names = async (q: string): Promise<string[]> =>
        (
          (await (await fetch(`${url}/metastore/search?q=${encodeURIComponent(q)}`)).json()) as {
            results: { name: string }[];
          }
        ).results.map((result) => result.name);
      expect(await names('cities')).toEqual(['world-cities']);
      expect(await names('World')).toEqual(['world-cities']);
      expect(await names('citi')).toEqual(['world-cities']);
      expect(await names('sales')).toEqual(['shop-sales']);
      expect(await names('world shop')).toEqual([]);
      // Wildcards of SQL are characters here: they match nothing in these names.
      expect(await names('%')).toEqual([]);
      expect(await names('w_rld')).toEqual([]);
      expect((await names('')).sort()).toEqual(['shop-sales', 'world-cities']);
    });
  });

  it('lists published datasets in search, not unlisted ones, which stay readable', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await waitForState(url, (await publish(url, jwt, CITIES)).flowId);
      await waitForState(
        url,
        (await publish(url, jwt, join(EXAMPLES, 'sales-v2'), { findability: 'unlisted' })).flowId,
      );
      const results = (await (await fetch(`${url}/metastore/search?q=""&size=10`)).json()) as {
        results: { id: string; name: string; datahub: { owner: string } }[];
        summary: { total: number };
      };
      expect(results.results.map((result) => [result.name, result.datahub.owner])).toEqual([
        ['world-cities', 'ada'],
      ]);
      expect((await fetch(`${url}/ada/shop-sales/datapackage.json`)).status).toBe(200);
      const paged = (await (
        await fetch(`${url}/metastore/search?q=%22cities%22&from=1`)
      ).json()) as { results: unknown[]; summary: { total: number } };
      expect(paged).toMatchObject({ results: [], summary: { total: 1 } });
    });
  });

  it('resolves user names and serves the public key', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const userid = (
        JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as {
          userid: string;
        }
      ).userid;
      expect(await (await fetch(`${url}/auth/resolve?username=ada`)).json()).toEqual({
        userid,
        kind: 'user',
      });
      expect(await (await fetch(`${url}/auth/resolve?username=nobody`)).json()).toEqual({
        userid: null,
      });
      expect(await (await fetch(`${url}/auth/public-key`)).text()).toMatch(
        /^-----BEGIN PUBLIC KEY-----/,
      );
    });
  });
});

describe('web pages', () => {
  it('lists datasets, searches, and shows a dataset with its resources, preview and validation', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await waitForState(url, (await publish(url, jwt, CITIES)).flowId);
      const home = await (await fetch(url)).text();
      expect(home).toContain('World cities and their countries');
      expect(await (await fetch(`${url}/?q=nothing-like-this`)).text()).toContain(
        'Nothing matches this search.',
      );
      // One table at a time: the cities, picked by name.
      const page = await (await fetch(`${url}/ada/world-cities?table=cities`)).text();
      for (const text of [
        '<h1>World cities and their countries</h1>',
        'href="/ada/world-cities/r/cities.csv"',
        'href="/ada/world-cities/r/cities.json"',
        '<td dir="auto">Sydney, NSW</td>',
        'Every resource passed validation',
      ]) {
        expect(page).toContain(text);
      }
      const missing = await fetch(`${url}/ada/nothing`, { headers: { accept: 'text/html' } });
      expect(missing.status).toBe(404);
      expect(await missing.text()).toContain('<h1>Not found</h1>');
    });
  });
});
