import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pricesPackage } from '../helpers/fixtures.js';
import { browserLogin, publish, waitForState, withHub } from './helpers.js';

const IMMUTABLE = 'public, max-age=31536000, immutable';

const FIRST = 'id,price\n1,1.5\n';
const SECOND = 'id,price\n1,1.5\n2,7\n';

async function published(url: string, jwt: string, dir: string, findability = 'published') {
  const { flowId } = await publish(url, jwt, dir, { findability });
  return (await waitForState(url, flowId, jwt)).state;
}

/** Everything of an answer a reader could tell apart, but its date and request id. */
async function answer(url: string, init: RequestInit = {}) {
  const response = await fetch(url, { ...init, redirect: 'manual' });
  const headers = [...response.headers.entries()].filter(
    ([name]) => name !== 'date' && name !== 'x-request-id',
  );
  return { status: response.status, headers, body: await response.text() };
}

/** Whether bytes are those a descriptor declares: their length, and their hash when given. */
function declared(bytes: Buffer, resource: { bytes?: number; hash?: string }): void {
  if (resource.bytes !== undefined) expect(bytes.length).toBe(resource.bytes);
  if (resource.hash === undefined) return;
  const [algorithm, digest] = resource.hash.includes(':')
    ? resource.hash.split(':')
    : ['md5', resource.hash];
  expect(
    createHash(algorithm ?? 'md5')
      .update(bytes)
      .digest('hex'),
  ).toBe(digest);
}

interface Descriptor {
  resources: { name: string; path?: unknown; bytes?: number; hash?: string }[];
}

describe('the address of each revision', () => {
  it('serves every path of revision N under /v/N/ as it was published, and names it from the latest', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      expect(await published(url, jwt, pricesPackage(FIRST))).toBe('SUCCEEDED');
      expect(await published(url, jwt, pricesPackage(SECOND))).toBe('SUCCEEDED');
      for (const [revision, csv] of [
        [1, FIRST],
        [2, SECOND],
      ] as const) {
        const at = `${url}/ada/prices/v/${String(revision)}/`;
        const read = await fetch(`${at}datapackage.json`);
        expect(read.status).toBe(200);
        expect(read.headers.get('cache-control')).toBe(IMMUTABLE);
        expect(read.headers.get('content-location')).toBeNull();
        const descriptor = (await read.json()) as Descriptor;
        const paths = descriptor.resources.filter(
          (resource) => typeof resource.path === 'string' && !/^https?:/.test(resource.path),
        );
        // The table, its copies and the zip: each relative path resolves inside revision N.
        expect(paths.length).toBeGreaterThan(4);
        for (const resource of paths) {
          const file = await fetch(new URL(resource.path as string, read.url));
          expect(file.status, resource.name).toBe(200);
          expect(file.headers.get('cache-control'), resource.name).toBe(IMMUTABLE);
          const bytes = Buffer.from(await file.arrayBuffer());
          declared(bytes, resource);
          if (resource.name === 'prices') expect(bytes.toString()).toBe(csv);
          if (resource.name === 'prices_csv') expect(bytes.toString()).toBe(csv);
        }
        const table = await fetch(`${at}r/prices.csv`);
        expect(await table.text()).toBe(csv);
        expect(table.headers.get('cache-control')).toBe(IMMUTABLE);
        const head = await fetch(`${at}r/prices.csv`, { method: 'HEAD' });
        expect(head.headers.get('content-length')).toBe(String(csv.length));
        expect(head.headers.get('cache-control')).toBe(IMMUTABLE);
        const report = await fetch(`${at}validation_report.json`);
        expect(report.status).toBe(200);
        expect(report.headers.get('cache-control')).toBe(IMMUTABLE);
        expect(((await report.json()) as { valid: boolean }).valid).toBe(true);
      }
      // The latest is revision 2, and says so: it asks to be asked again.
      const latest = await fetch(`${url}/ada/prices/datapackage.json`);
      expect(latest.headers.get('content-location')).toBe('/ada/prices/v/2/datapackage.json');
      expect(latest.headers.get('cache-control')).toBe('public, no-cache');
      expect(await latest.text()).toBe(
        await (await fetch(`${url}/ada/prices/v/2/datapackage.json`)).text(),
      );
      for (const [path, named] of [
        ['/ada/prices/r/prices.csv', '/ada/prices/v/2/r/prices.csv'],
        ['/ada/prices/data/prices.csv', '/ada/prices/v/2/data/prices.csv'],
        ['/ada/prices/validation_report.json', '/ada/prices/v/2/validation_report.json'],
      ]) {
        const file = await fetch(`${url}${path}`);
        expect(file.status).toBe(200);
        expect(file.headers.get('content-location')).toBe(named);
        expect(file.headers.get('cache-control')).toBe('public, no-cache');
      }
      // No such revision, or not one as an address writes it.
      for (const path of ['v/3/datapackage.json', 'v/0/datapackage.json', 'v/01/r/prices.csv'])
        expect((await fetch(`${url}/ada/prices/${path}`)).status, path).toBe(404);
    });
  });

  it("answers datapackage.json?v=N with revision N's descriptor, its relative paths reaching /v/N/, and moves ?v=N of a file there", async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await published(url, jwt, pricesPackage(FIRST));
      await published(url, jwt, pricesPackage(SECOND));
      // Not a redirect: a Frictionless reader resolves the paths against the address it asked.
      const legacyUrl = `${url}/ada/prices/datapackage.json?v=1`;
      const legacy = await fetch(legacyUrl, { redirect: 'manual' });
      expect(legacy.status).toBe(200);
      expect(legacy.headers.get('content-location')).toBeNull();
      expect(legacy.headers.get('link')).toBe(
        '</ada/prices/v/1/datapackage.json>; rel="canonical"',
      );
      expect(legacy.headers.get('cache-control')).toBe(IMMUTABLE);
      const etag = legacy.headers.get('etag') ?? '';
      const descriptor = (await legacy.json()) as Descriptor;
      const own = (await (
        await fetch(`${url}/ada/prices/v/1/datapackage.json`)
      ).json()) as Descriptor;
      expect(descriptor.resources.map((resource) => resource.path)).toEqual(
        own.resources.map((resource) => `v/1/${String(resource.path)}`),
      );
      const table = descriptor.resources.find((resource) => resource.name === 'prices');
      const rows = await fetch(new URL(String(table?.path), legacyUrl));
      expect(rows.url).toBe(`${url}/ada/prices/v/1/data/prices.csv`);
      expect(await rows.text()).toBe(FIRST);
      const again = await fetch(legacyUrl, { headers: { 'If-None-Match': etag } });
      expect(again.status).toBe(304);
      expect((await fetch(`${url}/ada/prices/datapackage.json?v=9`)).status).toBe(404);
      // What older clients sent: ?v= on each file too.
      const file = await fetch(`${url}/ada/prices/data/prices.csv?v=1`, { redirect: 'manual' });
      expect(file.headers.get('location')).toBe('/ada/prices/v/1/data/prices.csv');
      expect(await (await fetch(`${url}/ada/prices/r/prices.csv?v=1`)).text()).toBe(FIRST);
      expect((await fetch(`${url}/ada/prices/datapackage.json?v=01`)).status).toBe(400);
      // A revision is named by its number as written: no page at /v/01 as no file under it.
      for (const path of ['v/01', 'v/01/datapackage.json'])
        expect((await fetch(`${url}/ada/prices/${path}`)).status, path).toBe(404);
      // The revision's page links its own files.
      const page = await (await fetch(`${url}/ada/prices/v/1`)).text();
      expect(page).toContain('href="/ada/prices/v/1/datapackage.json"');
      expect(page).toContain('href="/ada/prices/v/1/r/prices.csv"');
      expect(page).toContain('data get ada/prices@1');
      const front = await (await fetch(`${url}/ada/prices`)).text();
      expect(front).toContain('href="/ada/prices/datapackage.json"');
    });
  });

  it('hides a private revision from others and a failed one from all, as if it did not exist', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url);
      const bob = await browserLogin(url, 'bob');
      expect(await published(url, ada, pricesPackage(FIRST))).toBe('SUCCEEDED');
      expect(await published(url, ada, pricesPackage(SECOND), 'private')).toBe('SUCCEEDED');
      expect(await published(url, ada, pricesPackage('id,price\n1,x\n'))).toBe('FAILED');
      expect(await published(url, ada, pricesPackage(`${SECOND}3,3\n`))).toBe('SUCCEEDED');
      const paths = [
        'datapackage.json',
        'validation_report.json',
        'r/prices.csv',
        'data/prices.csv',
      ];
      const readers = [{}, { 'Auth-Token': bob }];
      for (const path of paths) {
        const missing = await answer(`${url}/ada/prices/v/9/${path}`);
        expect(missing.status).toBe(404);
        for (const headers of readers)
          expect(await answer(`${url}/ada/prices/v/2/${path}`, { headers }), path).toEqual(missing);
        // Revision 3 failed: its report is on its page, but it has no address.
        for (const headers of [...readers, { 'Auth-Token': ada }])
          expect(await answer(`${url}/ada/prices/v/3/${path}`, { headers }), path).toEqual(missing);
      }
      const own = await fetch(`${url}/ada/prices/v/2/r/prices.csv`, {
        headers: { 'Auth-Token': ada },
      });
      expect(await own.text()).toBe(SECOND);
      expect(own.headers.get('cache-control')).toBe('private, no-store');
      const open = await fetch(`${url}/ada/prices/v/1/r/prices.csv`);
      expect(await open.text()).toBe(FIRST);
      expect(open.headers.get('cache-control')).toBe(IMMUTABLE);
      const latest = await fetch(`${url}/ada/prices/r/prices.csv`);
      expect(latest.headers.get('content-location')).toBe('/ada/prices/v/4/r/prices.csv');
    });
  });
});
