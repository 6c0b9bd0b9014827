/**
 * A page of another origin reads from the hub as a browser app would (a Frictionless viewer,
 * DuckDB-WASM, a notebook): Chromium enforces CORS, so what the page's script can read here
 * is what any site's script can read, and what it cannot read stays the hub's.
 */
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HAS_CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { browserLogin, CITIES_DIR, publish, waitForState, withHub } from '../hub/helpers.js';

const CITIES_CSV = readFileSync(join(CITIES_DIR, 'data', 'cities.csv'));

/** What the other origin's script saw of each read: a status and headers, or that it failed. */
interface Seen {
  status?: number;
  headers?: Record<string, string | null>;
  text?: string;
  failed?: string;
}

describe.skipIf(!HAS_CHROMIUM)('cross-origin reads in Chromium', () => {
  it("another origin's script reads public files, ranges, revisions and copies, and no private file even with the owner's cookie", async () => {
    const lines: string[] = [];
    await withHub({ logFormat: 'json', log: (line) => lines.push(line) }, async ({ url }) => {
      const jwt = await browserLogin(url);
      const open = await publish(url, jwt, CITIES_DIR);
      expect((await waitForState(url, open.flowId)).state).toBe('SUCCEEDED');
      const hidden = await publish(url, jwt, CITIES_DIR, {
        findability: 'private',
        dataset: 'hidden',
      });
      expect((await waitForState(url, hidden.flowId, jwt)).state).toBe('SUCCEEDED');

      // The other origin: the same host on another port, so the same site, whose requests
      // the owner's SameSite=Lax cookie rides along with when a script asks it to.
      const elsewhere = createServer((_request, response) => {
        response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        response.end('<!doctype html><title>elsewhere</title><p>a reader of another origin</p>');
      });
      await new Promise<void>((resolve) => elsewhere.listen(0, '127.0.0.1', resolve));
      const address = elsewhere.address();
      const origin = `http://127.0.0.1:${String(typeof address === 'object' && address ? address.port : 0)}`;
      const browser = await launchChromium();
      try {
        const context = await browser.newContext();
        // The owner is signed in in this browser: the hub's session cookie.
        await context.addCookies([{ name: 'data_session', value: jwt, url }]);
        const own = await context.request.get(`${url}/ada/hidden/r/cities.csv`);
        expect(own.status()).toBe(200);
        const page = await context.newPage();
        await page.goto(`${origin}/`);
        expect(new URL(page.url()).origin).not.toBe(new URL(url).origin);

        // From here the hub's log has only what the page asked.
        lines.length = 0;
        const seen = await page.evaluate(async (hub: string) => {
          const names = [
            'etag',
            'content-range',
            'content-length',
            'accept-ranges',
            'last-modified',
            'content-location',
            'content-disposition',
            'content-type',
          ];
          const read = async (path: string, init: RequestInit = {}): Promise<Seen> => {
            try {
              const response = await fetch(`${hub}${path}`, init);
              const headers: Record<string, string | null> = {};
              for (const name of names) headers[name] = response.headers.get(name);
              return { status: response.status, headers, text: await response.text() };
            } catch (error) {
              return { failed: String(error) };
            }
          };
          const csv = await read('/ada/world-cities/r/cities.csv');
          return {
            csv,
            head: await read('/ada/world-cities/r/cities.csv', { method: 'HEAD' }),
            range: await read('/ada/world-cities/r/cities.csv', {
              headers: { Range: 'bytes=0-9' },
            }),
            // Not a header a page may send freely: the hub's preflight allows it.
            unchanged: await read('/ada/world-cities/r/cities.csv', {
              headers: { 'If-None-Match': csv.headers?.etag ?? '' },
            }),
            twoRanges: await read('/ada/world-cities/v/1/r/cities.csv', {
              headers: { Range: 'bytes=0-1,4-5' },
            }),
            latest: await read('/ada/world-cities/datapackage.json'),
            revision: await read('/ada/world-cities/v/1/datapackage.json'),
            copy: await read('/ada/world-cities/v/1/r/cities.json'),
            search: await read('/metastore/search?q=cities'),
            privateAnonymous: await read('/ada/hidden/r/cities.csv'),
            privateWithCookie: await read('/ada/hidden/r/cities.csv', { credentials: 'include' }),
            privateDescriptor: await read('/ada/hidden/datapackage.json', {
              credentials: 'include',
            }),
            api: await read('/auth/check'),
            apiWithCookie: await read('/auth/check', { credentials: 'include' }),
            page: await read('/ada/world-cities'),
          };
        }, url);

        // A public file, its headers readable.
        expect(seen.csv.status).toBe(200);
        expect(seen.csv.text).toBe(CITIES_CSV.toString('utf8'));
        expect(seen.csv.headers?.etag).toMatch(/^"/);
        expect(seen.csv.headers?.['last-modified']).toBeTruthy();
        expect(seen.csv.headers?.['accept-ranges']).toBe('bytes');
        expect(seen.csv.headers?.['content-disposition']).toBe('attachment; filename="cities.csv"');
        expect(seen.csv.headers?.['content-location']).toBe('/ada/world-cities/v/1/r/cities.csv');
        expect(seen.head.status).toBe(200);
        expect(seen.head.headers?.['content-length']).toBe(String(CITIES_CSV.length));
        // A range: its bytes and its Content-Range.
        expect(seen.range.status).toBe(206);
        expect(seen.range.text).toBe(CITIES_CSV.subarray(0, 10).toString('utf8'));
        expect(seen.range.headers?.['content-range']).toBe(
          `bytes 0-9/${String(CITIES_CSV.length)}`,
        );
        // A conditional read after its preflight; several ranges after theirs.
        expect(seen.unchanged.status).toBe(304);
        expect(seen.unchanged.headers?.etag).toBe(seen.csv.headers?.etag);
        expect(seen.twoRanges.status).toBe(206);
        expect(seen.twoRanges.headers?.['content-type']).toMatch(/^multipart\/byteranges/);
        // The descriptors, a copy and search.
        expect(seen.latest.headers?.['content-location']).toBe(
          '/ada/world-cities/v/1/datapackage.json',
        );
        expect((JSON.parse(seen.revision.text ?? '{}') as { name?: string }).name).toBe(
          'world-cities',
        );
        expect(seen.copy.status).toBe(200);
        expect(seen.copy.headers?.['content-disposition']).toBe(
          'attachment; filename="cities_json.json"',
        );
        expect(seen.copy.text).toContain('Paris');
        expect(seen.search.status).toBe(200);
        expect(seen.search.text).toContain('world-cities');
        expect(seen.search.text).not.toContain('hidden');

        // Private: anonymous it is not there; with the owner's cookie the hub answers the
        // owner, and the browser keeps the answer from the other origin's script.
        expect(seen.privateAnonymous.status).toBe(404);
        expect(seen.privateWithCookie.failed).toMatch(/TypeError/);
        expect(seen.privateWithCookie.text).toBeUndefined();
        expect(seen.privateDescriptor.failed).toMatch(/TypeError/);
        await expect
          .poll(() =>
            lines.some((line) => {
              const entry = JSON.parse(line) as {
                route?: string;
                status?: number;
                userId?: string;
              };
              return (
                entry.route === '/:owner/:dataset/r/:file' &&
                entry.status === 200 &&
                entry.userId === hidden.userid
              );
            }),
          )
          .toBe(true);
        // The API and the pages are not for other origins.
        expect(seen.api.failed).toMatch(/TypeError/);
        expect(seen.apiWithCookie.failed).toMatch(/TypeError/);
        expect(seen.page.failed).toMatch(/TypeError/);
        await context.close();
      } finally {
        await browser.close();
        await new Promise<void>((resolve) => elsewhere.close(() => resolve()));
      }
    });
  }, 120_000);
});
