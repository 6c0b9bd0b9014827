/**
 * Debian's nginx as a caching proxy in front of a hub, configured by the recipe of
 * docs/scaling.md word for word: what it keeps, what it never keeps, and what it shows at once.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHub, type RunningHub } from '../../packages/hub/src/server.js';
import { browserLogin, runData, tempDir } from '../hub/helpers.js';
import {
  freePorts,
  people,
  published,
  runProgram,
  runs,
  writePackage,
  type Table,
} from './helpers.js';
import { NGINX, RECIPE, startNginx, type RunningNginx } from './nginx.js';

const SCALING = join(import.meta.dirname, '../../docs/scaling.md');
const YEAR = 'public, max-age=31536000, immutable';
const OGRINFO = '/usr/bin/ogrinfo';

interface Read {
  status: number;
  body: string;
  /** nginx's $upstream_cache_status: HIT, MISS, BYPASS, EXPIRED, REVALIDATED… */
  cache: string | null;
  headers: Headers;
}

async function read(url: string, headers: Record<string, string> = {}): Promise<Read> {
  const response = await fetch(url, { headers, redirect: 'manual' });
  return {
    status: response.status,
    body: await response.text(),
    cache: response.headers.get('x-cache-status'),
    headers: response.headers,
  };
}

/** What an exchange was, for a failure's message. */
function shown(url: string, answer: Read): string {
  return `GET ${url} → ${String(answer.status)} ${JSON.stringify(Object.fromEntries(answer.headers))}`;
}

it('the recipe docs/scaling.md shows is docs/nginx-hub.conf, word for word', () => {
  const page = readFileSync(SCALING, 'utf8');
  const block = /```nginx\n([^]*?)```/.exec(page)?.[1];
  expect(block).toBe(readFileSync(RECIPE, 'utf8'));
});

describe.skipIf(!runs(NGINX))('nginx with the recipe of docs/scaling.md in front of a hub', () => {
  let dataDir: string;
  let hub: RunningHub;
  let nginx: RunningNginx;
  let jwt: string;
  /** The hub itself, behind nginx. */
  let hubUrl: string;
  /** Through nginx: the address users reach the hub at. */
  let base: string;

  beforeAll(async () => {
    dataDir = tempDir();
    // The hub's own address is its public one, nginx's: it listens on a port chosen here.
    const [port = 0, hubPort = 0] = await freePorts(2);
    hub = await startHub({
      dataDir,
      port: hubPort,
      publicUrl: `http://127.0.0.1:${String(port)}`,
      log: () => {},
    });
    hubUrl = `http://127.0.0.1:${String(hubPort)}`;
    nginx = await startNginx(hubUrl, { port });
    base = nginx.url;
    // Signed in and published through nginx: the sign-in's redirects and cookies, and uploads.
    jwt = await browserLogin(base);
  });

  afterAll(async () => {
    await nginx?.stop();
    await hub?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it("serves a revision's files from its cache, and never the latest addresses", async () => {
    const dir = writePackage('kept', [people(1)]);
    await published(base, jwt, dir);
    const csv = readFileSync(join(dir, 'data', 'people.csv'), 'utf8');

    const latest = await read(`${base}/ada/kept/datapackage.json`);
    expect(latest.status, shown('latest', latest)).toBe(200);
    expect(latest.headers.get('cache-control')).toMatch(/no-cache/);
    expect(latest.cache).not.toBe('HIT');
    // The latest address names its revision's.
    const location = latest.headers.get('content-location');
    expect(location, shown('latest', latest)).not.toBeNull();
    const versioned = new URL(location ?? '', `${base}/ada/kept/datapackage.json`).href;
    expect(versioned).toBe(`${base}/ada/kept/v/1/datapackage.json`);

    const first = await read(versioned);
    expect(first.status, shown(versioned, first)).toBe(200);
    expect(first.headers.get('cache-control')).toBe(YEAR);
    expect(first.cache).toBe('MISS');
    const again = await read(versioned);
    expect(again.cache, shown(versioned, again)).toBe('HIT');
    expect(again.body).toBe(first.body);

    // Every path of the revision's descriptor, resolved against its address, copies included.
    const descriptor = JSON.parse(first.body) as { resources: { name: string; path: string }[] };
    expect(descriptor.resources.length).toBeGreaterThan(1);
    const bodies = new Map<string, string>();
    for (const resource of descriptor.resources) {
      const url = new URL(resource.path, versioned).href;
      expect(url.startsWith(`${base}/ada/kept/v/1/`), url).toBe(true);
      const once = await read(url);
      expect(once.status, shown(url, once)).toBe(200);
      expect(once.headers.get('cache-control'), shown(url, once)).toBe(YEAR);
      // A copy not made yet comes as the hub makes it, without its length, and is not kept:
      // the next read, once it is made, is.
      if (once.headers.get('content-length') === null) {
        const made = await read(url);
        expect(made.cache, shown(url, made)).toBe('MISS');
        expect(made.headers.get('content-length'), shown(url, made)).not.toBeNull();
      }
      const twice = await read(url);
      expect(twice.cache, shown(url, twice)).toBe('HIT');
      expect(twice.body).toBe(once.body);
      bodies.set(resource.name, twice.body);
      if (resource.name === 'people') expect(twice.body).toBe(csv);
    }

    // A conditional request is answered from the cache too.
    const etag = again.headers.get('etag') ?? '';
    const unchanged = await read(versioned, { 'if-none-match': etag });
    expect(unchanged.status, shown(versioned, unchanged)).toBe(304);
    expect(unchanged.cache).toBe('HIT');
    // A HEAD is the hub's once, with the length, then kept apart from the GET.
    for (const status of ['MISS', 'HIT']) {
      const head = await fetch(versioned, { method: 'HEAD' });
      expect(head.status).toBe(200);
      expect(head.headers.get('x-cache-status')).toBe(status);
      expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(first.body)));
    }

    // A range, on a file not kept yet then kept, is cut from the whole file.
    const file = `${base}/ada/kept/v/1/r/people.json`;
    for (const status of ['MISS', 'HIT']) {
      const part = await read(file, { range: 'bytes=0-9' });
      expect(part.status, shown(file, part)).toBe(206);
      expect(part.cache).toBe(status);
      expect(part.body).toBe(bodies.get('people_json')?.slice(0, 10));
    }

    // The latest addresses are the hub's to answer each time, conditions and ranges included.
    for (const path of ['datapackage.json', 'data/people.csv', 'r/people.csv']) {
      const url = `${base}/ada/kept/${path}`;
      await read(url);
      const answer = await read(url);
      expect(answer.status, shown(url, answer)).toBe(200);
      expect(answer.cache, shown(url, answer)).toBeNull();
      const checked = await read(url, { 'if-none-match': answer.headers.get('etag') ?? '' });
      expect(checked.status, shown(url, checked)).toBe(304);
      const part = await read(url, { range: 'bytes=2-5' });
      expect(part.status, shown(url, part)).toBe(206);
      expect(part.body).toBe(answer.body.slice(2, 6));
    }
  });

  it('shows a new revision at once at the latest addresses, the old one still from its cache', async () => {
    const first = writePackage('ages', [people(1)]);
    await published(base, jwt, first);
    const old = readFileSync(join(first, 'data', 'people.csv'), 'utf8');
    expect(await read(`${base}/ada/ages/data/people.csv`)).toMatchObject({ body: old });
    await read(`${base}/ada/ages/v/1/data/people.csv`);
    expect(await read(`${base}/ada/ages/v/1/data/people.csv`)).toMatchObject({
      status: 200,
      body: old,
      cache: 'HIT',
    });

    const second = writePackage('ages', [people(2)]);
    await published(base, jwt, second);
    const now = readFileSync(join(second, 'data', 'people.csv'), 'utf8');
    expect(now).not.toBe(old);
    const latest = await read(`${base}/ada/ages/data/people.csv`);
    expect(latest.body, shown('latest', latest)).toBe(now);
    const descriptor = await read(`${base}/ada/ages/datapackage.json`);
    expect(descriptor.headers.get('content-location')).toMatch(
      /\/ada\/ages\/v\/2\/datapackage\.json$/,
    );
    const copy = await read(`${base}/ada/ages/r/people.json`);
    expect(JSON.parse(copy.body)).toContainEqual(expect.objectContaining({ id: 1, age: 120 }));
    // Revision 1 keeps its bytes, from the cache; revision 2 has its own address.
    expect(await read(`${base}/ada/ages/v/1/data/people.csv`)).toMatchObject({
      body: old,
      cache: 'HIT',
    });
    expect(await read(`${base}/ada/ages/v/2/data/people.csv`)).toMatchObject({
      status: 200,
      body: now,
    });
  });

  it("never keeps what a credential read: the owner's private file is not an anonymous reader's", async () => {
    const dir = writePackage('secret', [people(1)]);
    await published(base, jwt, dir, { findability: 'private' });
    const csv = readFileSync(join(dir, 'data', 'people.csv'), 'utf8');
    const credentials: Record<string, string>[] = [
      { 'auth-token': jwt },
      { cookie: `data_session=${jwt}` },
    ];
    for (const path of ['data/people.csv', 'v/1/data/people.csv', 'r/people.json'])
      for (const credential of credentials) {
        const url = `${base}/ada/secret/${path}`;
        for (let time = 0; time < 2; time++) {
          const owner = await read(url, credential);
          expect(owner.status, shown(url, owner)).toBe(200);
          // At a revision's address it passes the cache by; elsewhere there is none.
          expect(owner.cache, shown(url, owner)).toBe(path.startsWith('v/') ? 'BYPASS' : null);
          if (path.endsWith('.csv')) expect(owner.body).toBe(csv);
        }
        const anonymous = await read(url);
        expect(anonymous.status, shown(url, anonymous)).toBe(404);
        expect(anonymous.cache).not.toBe('HIT');
        expect(anonymous.body).not.toContain('person 1');
      }

    // A public file read with a credential is not kept either: the next anonymous read asks.
    await published(base, jwt, writePackage('open', [people(1)]));
    const url = `${base}/ada/open/v/1/data/people.csv`;
    expect((await read(url, { 'auth-token': jwt })).cache).toBe('BYPASS');
    expect((await read(url)).cache).toBe('MISS');
    expect((await read(url)).cache).toBe('HIT');
  });

  it('carries data publish and data get, megabytes included; a revision got again comes from its cache', async () => {
    // Past nginx's own limit of a request's body (1 MB), which the recipe lifts.
    const readings: Table = {
      name: 'readings',
      fields: [
        { name: 'station', type: 'string' },
        { name: 'reading', type: 'integer' },
      ],
      rows: Array.from({ length: 150_000 }, (_, i) => [`station-${String(i % 97)}`, String(i)]),
    };
    const dir = writePackage('bulky', [readings]);
    const csv = readFileSync(join(dir, 'data', 'readings.csv'));
    expect(csv.length).toBeGreaterThan(2_000_000);
    const sent = await runData(['publish', dir], { env: { DATA_API: base, DATA_TOKEN: jwt } });
    expect(sent.err).not.toMatch(/^error/m);
    expect(sent.code).toBe(0);
    // The old clients' form upload, the same size, through nginx too.
    await published(base, jwt, dir, { dataset: 'bulky-form' });

    const work = tempDir();
    const got = async (out: string) => {
      const run = await runData(['get', 'ada/bulky@1', '--out', out], {
        env: { DATA_API: base },
        cwd: work,
      });
      expect(run.err).not.toMatch(/^error/m);
      expect(run.code).toBe(0);
      expect(readFileSync(join(work, out, 'data', 'readings.csv')).equals(csv)).toBe(true);
    };
    await got('first');
    const before = nginx.requests().length;
    await got('second');
    const again = nginx.requests().slice(before);
    const revision = again.filter((line) => line.includes(' /ada/bulky/v/1/'));
    expect(
      revision.some((line) => line.includes('/v/1/data/readings.csv')),
      again.join('\n'),
    ).toBe(true);
    for (const line of revision) expect(line).toMatch(/^HIT /);
  });

  it.runIf(runs(OGRINFO))(
    "lets GDAL read a revision's copy by ranges, from its cache after the first read",
    async () => {
      const dir = writePackage('gauges', [people(1, 2000)], { delimiter: ';' });
      await published(base, jwt, dir);
      // A copy the hub has not made yet, at a revision's address: GDAL's HEAD, then ranges.
      const address = `/vsicurl/${base}/ada/gauges/v/1/r/people_csv.csv`;
      const open = async (): Promise<string[]> => {
        const before = nginx.requests().length;
        const run = await runProgram(OGRINFO, ['-ro', '-al', '-so', address]);
        expect(run.code, run.err).toBe(0);
        expect(run.out).toMatch('Feature Count: 2000');
        return nginx
          .requests()
          .slice(before)
          .filter((line) => line.includes(' /ada/gauges/v/1/r/people_csv.csv '));
      };
      const first = await open();
      expect(first[0], first.join('\n')).toBe('MISS HEAD /ada/gauges/v/1/r/people_csv.csv 200');
      expect(
        first.slice(1).every((line) => line.endsWith(' 206')),
        first.join('\n'),
      ).toBe(true);
      // GDAL's second open is answered by nginx alone, ranges included.
      const second = await open();
      expect(second.length, second.join('\n')).toBeGreaterThan(1);
      for (const line of second) expect(line).toMatch(/^HIT (HEAD .* 200|GET .* 206)$/);
    },
  );

  it("keeps a credential's answer apart by Vary even in a cache told to ignore Cache-Control", async () => {
    // The recipe without its credential rule, with the hub's Cache-Control ignored and every
    // address cached: what a careless operator might run. Only the hub's Vary stands between
    // the owner and others.
    const careless = await startNginx(hubUrl, {
      edit: (recipe) =>
        (
          [
            [/location ~ \^\/\(.*\) \{/, 'location ~ ^/ {'],
            [/^\s*proxy_cache_bypass .*$/m, ''],
            [/^\s*proxy_no_cache .*$/m, ''],
            [
              /proxy_cache data_hub;/,
              'proxy_cache data_hub; proxy_ignore_headers Cache-Control Expires; proxy_cache_valid 200 10m;',
            ],
          ] as const
        ).reduce((text, [from, to]) => {
          if (!from.test(text)) throw new Error(`the recipe has no ${String(from)}`);
          return text.replace(from, to);
        }, recipe),
    });
    try {
      const dir = writePackage('hidden', [people(1)]);
      await published(base, jwt, dir, { findability: 'private' });
      const credentials: Record<string, string>[] = [
        { 'auth-token': jwt },
        { cookie: `data_session=${jwt}` },
      ];
      for (const credential of credentials)
        for (const path of ['data/people.csv', 'v/1/data/people.csv', 'r/people.csv']) {
          const url = `${careless.url}/ada/hidden/${path}`;
          const owner = await read(url, credential);
          expect(owner.status, shown(url, owner)).toBe(200);
          expect(owner.headers.get('vary') ?? '', shown(url, owner)).toMatch(
            'cookie' in credential ? /cookie/i : /auth-token/i,
          );
          const anonymous = await read(url);
          expect(anonymous.status, shown(url, anonymous)).toBe(404);
          expect(anonymous.body).not.toContain('person 1');
        }
      // The public files of the hub are kept by such a cache all the same.
      await published(base, jwt, writePackage('shown', [people(1)]));
      const url = `${careless.url}/ada/shown/v/1/datapackage.json`;
      await read(url);
      expect((await read(url)).cache).toBe('HIT');
    } finally {
      await careless.stop();
    }
  });
});
