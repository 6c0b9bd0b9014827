/**
 * Cross-origin reads at the HTTP level: which routes carry CORS headers (checked against
 * every route the hub answers, by the route template the hub itself logs), the preflight of
 * a read, and none of it on uploads, sign-in, the pipeline, pages or anything that changes
 * state. test/e2e/cross-origin-reads.test.ts reads the same way from a page in Chromium.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../packages/hub/src/server.js';
import { browserLogin, CITIES_DIR, publish, tempDir, waitForState, withHub } from './helpers.js';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
}

/** One request as a browser of another origin sends it, its body left unread. */
function ask(url: string, method: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      url,
      { method, headers: { origin: 'http://127.0.0.1:9', ...headers } },
      (response) => {
        response.resume();
        response.once('end', () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers }),
        );
      },
    );
    sent.once('error', reject);
    sent.end();
  });
}

/** The routes whose GET and HEAD any origin may read. */
const READABLE = [
  'GET /metastore/search',
  'GET /:owner/:dataset/datapackage.json',
  'GET /:owner/:dataset/validation_report.json',
  'GET /:owner/:dataset/r/:file',
  'GET /:owner/:dataset/rows',
  'GET /:owner/:dataset/:path',
  'GET /:owner/:dataset/v/:revision/datapackage.json',
  'GET /:owner/:dataset/v/:revision/validation_report.json',
  'GET /:owner/:dataset/v/:revision/r/:file',
  'GET /:owner/:dataset/v/:revision/rows',
  'GET /:owner/:dataset/v/:revision/:path',
];

/** Routes the hub does not log as requests (operations). */
const UNLOGGED = new Set(['/healthz', '/readyz', '/metrics']);

/** An address of a route, its parameters filled in. */
function sample(template: string, userid: string): string {
  return template
    .replace(':ownerid', userid)
    .replace(':owner', 'ada')
    .replace(':dataset', 'world-cities')
    .replace(':revision', '1')
    .replace(':provider', 'elsewhere')
    .replace(':key', '0123456789abcdef0123456789abcdef.csv')
    .replace(':range', '1..1')
    .replace(':file', 'cities.csv')
    .replace(':path', 'data/cities.csv');
}

const PREFLIGHT = {
  'access-control-request-method': 'GET',
  'access-control-request-headers': 'if-none-match, range',
};

describe('cross-origin reads over HTTP', () => {
  it('CORS headers on the public read routes and on no other route, whatever the method', async () => {
    const lines: string[] = [];
    await withHub({ logFormat: 'json', log: (line) => lines.push(line) }, async ({ url }) => {
      const jwt = await browserLogin(url);
      const { flowId, userid } = await publish(url, jwt, CITIES_DIR);
      expect((await waitForState(url, flowId)).state).toBe('SUCCEEDED');
      expect(ROUTES.length).toBeGreaterThan(40);
      for (const route of ROUTES) {
        const [method = '', template = ''] = route.split(' ');
        const address = `${url}${sample(template, userid)}`;
        lines.length = 0;
        const answer = await ask(address, method);
        const readable = READABLE.includes(route);
        expect(answer.headers['access-control-allow-origin'], route).toBe(
          readable ? '*' : undefined,
        );
        expect(answer.headers['access-control-expose-headers'] !== undefined, route).toBe(readable);
        expect(answer.headers['access-control-allow-credentials'], route).toBeUndefined();
        if (readable) expect(answer.status, route).toBe(200);
        // The address reached the route meant, as the hub names it.
        if (!UNLOGGED.has(template)) {
          await expect
            .poll(() => lines.some((line) => line.includes(`"route":"${template}"`)), {
              message: route,
            })
            .toBe(true);
        }
        // A preflight of the same address: allowed on the reads only.
        const preflight = await ask(address, 'OPTIONS', PREFLIGHT);
        expect(preflight.status, `OPTIONS ${template}`).toBe(readable ? 204 : 405);
        expect(preflight.headers['access-control-allow-origin'], `OPTIONS ${template}`).toBe(
          readable ? '*' : undefined,
        );
        expect(preflight.headers['access-control-allow-methods'], `OPTIONS ${template}`).toBe(
          readable ? 'GET, HEAD' : undefined,
        );
      }
    });
  }, 60_000);

  it("a preflight of a read: GET and HEAD, the range and conditional headers, no credential's", async () => {
    await withHub({}, async ({ url }) => {
      for (const path of [
        '/ada/world-cities/datapackage.json',
        '/ada/world-cities/v/3/r/cities.csv',
        '/nobody/nothing/data/x.csv',
        '/metastore/search',
      ]) {
        const answer = await ask(`${url}${path}`, 'OPTIONS', PREFLIGHT);
        expect(answer.status, path).toBe(204);
        expect(answer.headers['access-control-allow-origin']).toBe('*');
        expect(answer.headers['access-control-allow-methods']).toBe('GET, HEAD');
        const allowed = String(answer.headers['access-control-allow-headers'])
          .split(',')
          .map((name) => name.trim().toLowerCase());
        expect(allowed.sort()).toEqual(
          ['if-match', 'if-modified-since', 'if-none-match', 'if-range', 'range'].sort(),
        );
        expect(Number(answer.headers['access-control-max-age'])).toBeGreaterThan(0);
        expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
        // The same answer for every origin and every credential.
        expect(answer.headers.vary).toBeUndefined();
      }
      // A preflight for a write to a read address allows only GET and HEAD, which the
      // browser then refuses to send as a PUT.
      const put = await ask(`${url}/ada/world-cities/datapackage.json`, 'OPTIONS', {
        'access-control-request-method': 'PUT',
      });
      expect(put.headers['access-control-allow-methods']).toBe('GET, HEAD');
      // Nothing but the reads: uploads, sign-in, the pipeline, pages, the fixed files.
      for (const path of [
        '/rawstore/authorize',
        '/rawstore/objects',
        '/rawstore/uploads',
        '/source/upload',
        '/source/abc/world-cities',
        '/auth/token',
        '/auth/login/local',
        '/auth/logout',
        '/auth/check',
        '/ada',
        '/ada/world-cities',
        '/ada/world-cities/v/1',
        '/ada/world-cities/diff/1..2',
        '/static/hub.js',
        '/',
      ]) {
        const answer = await ask(`${url}${path}`, 'OPTIONS', {
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'auth-token, content-type',
        });
        expect(answer.status, path).toBe(405);
        expect(answer.headers['access-control-allow-origin'], path).toBeUndefined();
        expect(answer.headers['access-control-allow-methods'], path).toBeUndefined();
        expect(answer.headers['access-control-allow-headers'], path).toBeUndefined();
      }
    });
  });

  it("a private file: 404 to another origin, and never readable with the owner's cookie", async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const { flowId } = await publish(url, jwt, CITIES_DIR, {
        findability: 'private',
        dataset: 'hidden',
      });
      expect((await waitForState(url, flowId, jwt)).state).toBe('SUCCEEDED');
      const address = `${url}/ada/hidden/r/cities.csv`;
      const anonymous = await ask(address, 'GET');
      expect(anonymous.status).toBe(404);
      expect(anonymous.headers['access-control-allow-origin']).toBe('*');
      // The cookie a signed-in browser attaches: answered, but with `*` and no
      // Allow-Credentials, which a browser never lets a script of another origin read.
      const owner = await ask(address, 'GET', { cookie: `data_session=${jwt}` });
      expect(owner.status).toBe(200);
      expect(owner.headers['access-control-allow-origin']).toBe('*');
      expect(owner.headers['access-control-allow-credentials']).toBeUndefined();
      expect(owner.headers['cache-control']).toBe('private, no-store');
      // An error of a read is readable too, and a move: a reader learns what went wrong.
      const moved = await ask(`${url}/ADA/hidden/r/cities.csv?v=1`, 'GET');
      expect(moved.status).toBe(301);
      expect(moved.headers['access-control-allow-origin']).toBe('*');
    });
  });

  it("a large file a bucket's hub redirects to the bucket is answered by the hub to another origin", async () => {
    const dir = tempDir();
    try {
      // Over 1 MB: on S3 a plain GET is a redirect to the bucket, whose answer has no CORS.
      const rows = Array.from({ length: 80_000 }, (_, i) => `${String(i)},row ${String(i)}`);
      const bytes = Buffer.from(`n,label\n${rows.join('\n')}\n`);
      expect(bytes.length).toBeGreaterThan(1024 * 1024);
      writeFileSync(join(dir, 'large.csv'), bytes);
      writeFileSync(
        join(dir, 'datapackage.json'),
        JSON.stringify({ name: 'large', resources: [{ name: 'table', path: 'large.csv' }] }),
      );
      await withHub({}, async ({ url }) => {
        const jwt = await browserLogin(url);
        const { flowId } = await publish(url, jwt, dir);
        expect((await waitForState(url, flowId)).state).toBe('SUCCEEDED');
        const address = `${url}/ada/large/r/large.csv`;
        const bucket = process.env.DATA_TEST_STORAGE === 's3';
        const plain = await fetch(address, { redirect: 'manual' });
        await plain.body?.cancel();
        expect(plain.status).toBe(bucket ? 302 : 200);
        const asks: Record<string, string>[] = [{}, { range: 'bytes=1000000-1000009' }];
        for (const headers of asks) {
          const answer = await ask(address, 'GET', headers);
          expect(answer.status).toBe('range' in headers ? 206 : 200);
          expect(answer.headers['access-control-allow-origin']).toBe('*');
          expect(answer.headers.location).toBeUndefined();
        }
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes with an Origin carry no CORS header and still refuse cross-site forms', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      for (const [method, path] of [
        ['POST', '/auth/login/local'],
        ['POST', '/auth/logout'],
        ['POST', '/auth/token'],
        ['POST', '/rawstore/authorize'],
        ['POST', '/source/upload'],
        ['DELETE', '/source/abc/world-cities'],
        ['PUT', '/ada/world-cities/datapackage.json'],
        ['POST', '/ada/world-cities/r/cities.csv'],
        ['DELETE', '/ada/world-cities/data/cities.csv'],
      ] as const) {
        const answer = await ask(`${url}${path}`, method, {
          cookie: `data_session=${jwt}`,
          'sec-fetch-site': 'cross-site',
        });
        expect(answer.status, `${method} ${path}`).toBeGreaterThanOrEqual(400);
        expect(answer.headers['access-control-allow-origin'], `${method} ${path}`).toBeUndefined();
        expect(answer.headers['access-control-expose-headers']).toBeUndefined();
      }
    });
  });
});
