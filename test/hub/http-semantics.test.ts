/**
 * The read routes as HTTP clients nobody here wrote read them: Debian's curl and wget (and
 * GDAL's /vsicurl/ on a copy not made yet), for each conditional and range case of RFC 9110,
 * the names downloads are saved under, the charset of a Latin-1 table, and Vary.
 */
import { execFile } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseByteranges } from '../helpers/byteranges.js';
import {
  afterPublication,
  browserLogin,
  CITIES_DIR,
  publish,
  tempDir,
  waitForState,
  withHub,
} from './helpers.js';

const CURL = '/usr/bin/curl';
const WGET = '/usr/bin/wget';
const OGRINFO = '/usr/bin/ogrinfo';
/** Under CI a missing program fails its tests (.ci/run installs them); elsewhere they skip. */
const has = (program: string) => existsSync(program) || Boolean(process.env.CI);

const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));

function run(
  program: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      program,
      args,
      {
        cwd: options.cwd ?? work,
        encoding: 'buffer',
        maxBuffer: 64 * 1024 * 1024,
        env: { PATH: process.env.PATH ?? '', HOME: work, ...options.env },
      },
      (error, stdout, stderr) => {
        // An exit code of its own is the program's answer; anything else (not found) is ours.
        if (error && typeof error.code !== 'number') reject(new Error(error.message));
        else resolve({ code: Number(error?.code ?? 0), stdout, stderr: stderr.toString() });
      },
    );
  });
}

interface Answer {
  status: number;
  /** The last header block's fields, names in lower case. */
  headers: Record<string, string>;
  body: Buffer;
}

let curls = 0;

/** One request by Debian's curl: `args` as typed after `curl`, the URL last. */
async function curl(url: string, ...args: string[]): Promise<Answer> {
  const dir = join(work, `curl-${String(++curls)}`);
  mkdirSync(dir);
  const [headerFile, bodyFile] = [join(dir, 'headers'), join(dir, 'body')];
  const { code, stdout, stderr } = await run(CURL, [
    '--noproxy',
    '*',
    '-sS',
    '-D',
    headerFile,
    '-o',
    bodyFile,
    '-w',
    '%{http_code}',
    ...args,
    url,
  ]);
  if (code !== 0) throw new Error(`curl ${args.join(' ')} ${url}: exit ${String(code)} ${stderr}`);
  const blocks = readFileSync(headerFile, 'latin1').split('\r\n\r\n');
  const last = blocks.filter((block) => block.trim() !== '').at(-1) ?? '';
  const headers: Record<string, string> = {};
  for (const line of last.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(stdout.toString()),
    headers,
    body: existsSync(bodyFile) ? readFileSync(bodyFile) : Buffer.alloc(0),
  };
}

/** The files a program saved in a folder of its own. */
async function savedBy(program: string, args: string[]): Promise<string[]> {
  const dir = mkdtempSync(join(work, 'saved-'));
  const { code, stderr } = await run(program, args, { cwd: dir });
  if (code !== 0) throw new Error(`${program} ${args.join(' ')}: exit ${String(code)} ${stderr}`);
  return readdirSync(dir);
}

async function published(
  url: string,
  jwt: string,
  dir: string,
  options: { findability?: string } = {},
): Promise<void> {
  const state = await waitForState(url, (await publish(url, jwt, dir, options)).flowId, jwt);
  expect(state.error_log).toEqual([]);
  expect(state.state).toBe('SUCCEEDED');
}

/** A package of one table, written as `bytes` under `path`, its descriptor's resource `extra`. */
function tablePackage(
  name: string,
  path: string,
  bytes: Buffer,
  resource: Record<string, unknown> = {},
): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, path), bytes);
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({ name, resources: [{ name: 'table', path, ...resource }] }),
  );
  return dir;
}

/** A semicolon-delimited table, so that its CSV copy is one the hub must make. */
function pricesPackage(name: string, rows: number): string {
  const lines = [
    'id;name;price',
    ...Array.from(
      { length: rows },
      (_, i) => `${String(i)};item ${String(i)};${String(i % 100)}.5`,
    ),
  ];
  return tablePackage(name, 'prices.csv', Buffer.from(`${lines.join('\n')}\n`), {
    dialect: { delimiter: ';' },
    schema: {
      fields: [
        { name: 'id', type: 'integer' },
        { name: 'name', type: 'string' },
        { name: 'price', type: 'number' },
      ],
    },
  });
}

const CITIES_CSV = readFileSync(join(CITIES_DIR, 'data/cities.csv'));

describe.skipIf(!has(CURL))('HTTP semantics of the read routes, with curl and wget', () => {
  it('answers conditional requests as curl and wget -N send them', async () => {
    await withHub({}, async ({ url }) => {
      await published(url, await browserLogin(url), CITIES_DIR);
      const file = `${url}/ada/world-cities/r/1.csv`;
      const first = await curl(file);
      expect(first.status).toBe(200);
      expect(first.body.equals(CITIES_CSV)).toBe(true);
      const etag = first.headers.etag ?? '';
      const lastModified = first.headers['last-modified'] ?? '';
      expect(etag).toMatch(/^"[^"]+"$/);
      // The weak form a gzip proxy sends back, lists, and *: If-None-Match compares weakly.
      for (const header of [etag, `W/${etag}`, `"stale", ${etag}`, '*']) {
        const again = await curl(file, '-H', `If-None-Match: ${header}`);
        expect(again.status, header).toBe(304);
        expect(again.body.length).toBe(0);
        expect(again.headers.etag).toBe(etag);
      }
      expect((await curl(file, '-H', 'If-None-Match: "stale", W/"older"')).status).toBe(200);
      // If-Modified-Since, as `curl -z <date>` sends it.
      expect((await curl(file, '-z', lastModified)).status).toBe(304);
      const earlier = new Date(Date.parse(lastModified) - 60_000).toUTCString();
      const changed = await curl(file, '-z', earlier);
      expect(changed.status).toBe(200);
      expect(changed.body.equals(CITIES_CSV)).toBe(true);
      // If-Match compares strongly: a weak tag is no match.
      expect((await curl(file, '-H', `If-Match: W/${etag}`)).status).toBe(412);
      expect((await curl(file, '-H', `If-Match: ${etag}`)).status).toBe(200);
      // wget -N fetches once, then asks If-Modified-Since and keeps its file.
      if (has(WGET)) {
        const dir = mkdtempSync(join(work, 'wget-'));
        const wget = (...args: string[]) =>
          run(WGET, ['--no-proxy', '-N', '-S', ...args, file], { cwd: dir });
        const fetched = await wget();
        expect(fetched.code, fetched.stderr).toBe(0);
        expect(readFileSync(join(dir, '1.csv')).equals(CITIES_CSV)).toBe(true);
        expect(statSync(join(dir, '1.csv')).mtime.toUTCString()).toBe(lastModified);
        const kept = await wget();
        expect(kept.code, kept.stderr).toBe(0);
        expect(kept.stderr).toMatch(/HTTP\/1\.1 304 Not Modified/);
        expect(kept.stderr).not.toMatch(/200 OK/);
      }
    });
  });

  it('answers ranges: If-Range, several as multipart, unknown and invalid ones ignored, 416, HEAD as GET', async () => {
    await withHub({}, async ({ url }) => {
      await published(url, await browserLogin(url), CITIES_DIR);
      const file = `${url}/ada/world-cities/r/1.csv`;
      const size = String(CITIES_CSV.length);
      const head = await curl(file, '-I');
      const etag = head.headers.etag ?? '';
      const lastModified = head.headers['last-modified'] ?? '';
      // If-Range with the tag, or the date, of this version: the range; of another: the whole.
      for (const ifRange of [etag, lastModified]) {
        const part = await curl(file, '-r', '10-19', '-H', `If-Range: ${ifRange}`);
        expect(part.status, ifRange).toBe(206);
        expect(part.headers['content-range']).toBe(`bytes 10-19/${size}`);
        expect(part.body.equals(CITIES_CSV.subarray(10, 20))).toBe(true);
      }
      for (const ifRange of ['"another"', `W/${etag}`, 'Thu, 01 Jan 1970 00:00:00 GMT']) {
        const whole = await curl(file, '-r', '10-19', '-H', `If-Range: ${ifRange}`);
        expect(whole.status, ifRange).toBe(200);
        expect(whole.body.equals(CITIES_CSV)).toBe(true);
      }
      // Several ranges: multipart/byteranges, read part by part and checked byte for byte.
      const several = await curl(file, '-r', '0-9,100-149,-20');
      expect(several.status).toBe(206);
      expect(Number(several.headers['content-length'])).toBe(several.body.length);
      const parts = parseByteranges(several.headers['content-type'] ?? '', several.body);
      const end = CITIES_CSV.length;
      expect(parts.map((part) => [part.type, part.range])).toEqual([
        ['text/csv; charset=utf-8', `bytes 0-9/${size}`],
        ['text/csv; charset=utf-8', `bytes 100-149/${size}`],
        ['text/csv; charset=utf-8', `bytes ${String(end - 20)}-${String(end - 1)}/${size}`],
      ]);
      expect(Buffer.concat(parts.map((part) => part.body))).toEqual(
        Buffer.concat([
          CITIES_CSV.subarray(0, 10),
          CITIES_CSV.subarray(100, 150),
          CITIES_CSV.subarray(-20),
        ]),
      );
      // An unknown unit, an invalid range, more ranges than the bound: ignored, the whole 200.
      const many = Array.from({ length: 60 }, (_, i) => `${String(i * 2)}-${String(i * 2)}`);
      for (const range of ['items=0-5', 'bytes=20-10', 'bytes=x-y', `bytes=${many.join(',')}`]) {
        const whole = await curl(file, '-H', `Range: ${range}`);
        expect(whole.status, range).toBe(200);
        expect(whole.body.equals(CITIES_CSV)).toBe(true);
      }
      const past = await curl(file, '-r', `${size}-`);
      expect(past.status).toBe(416);
      expect(past.headers['content-range']).toBe(`bytes */${size}`);
      // At a revision's address, whose file is kept a year: a 412 or 416 is kept by no one.
      const kept = `${url}/ada/world-cities/v/1/r/1.csv`;
      const keptTag = (await curl(kept, '-I')).headers.etag ?? '';
      for (const failed of [
        await curl(kept, '-r', `${size}-`),
        await curl(kept, '-H', 'If-Match: "another"'),
      ]) {
        expect([416, 412]).toContain(failed.status);
        expect(failed.headers['cache-control'], String(failed.status)).toBe('no-store');
        expect(failed.headers.etag).toBe(keptTag);
      }
      expect((await curl(kept)).headers['cache-control']).toBe(
        'public, max-age=31536000, immutable',
      );
      // HEAD: every header of the GET, Content-Length included, no body.
      const get = await curl(file);
      const { date: _head, ...headHeaders } = head.headers;
      const { date: _get, 'x-request-id': _getId, ...getHeaders } = get.headers;
      delete headHeaders['x-request-id'];
      expect(head.status).toBe(200);
      expect(headHeaders).toEqual(getHeaders);
      expect(head.headers['content-length']).toBe(size);
    });
  });

  it("names downloads by the resource's file name and labels a Latin-1 table's charset", async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await published(url, jwt, CITIES_DIR);
      // curl -OJ saves under the name Content-Disposition gives: the resource's own.
      expect(
        await savedBy(CURL, ['--noproxy', '*', '-sSOJ', `${url}/ada/world-cities/r/1.csv`]),
      ).toEqual(['cities.csv']);
      const descriptor = await curl(`${url}/ada/world-cities/datapackage.json`);
      expect(descriptor.headers['content-disposition']).toBe('inline; filename="datapackage.json"');
      expect(descriptor.headers['content-type']).toBe('application/json');
      // A Latin-1 table whose name is not ASCII: its declared encoding is its charset.
      const latin = Buffer.from('ville,pays\nZürich,Suisse\nSão Paulo,Brésil\n', 'latin1');
      await published(
        url,
        jwt,
        tablePackage('villes', 'villes-é.csv', latin, { encoding: 'iso-8859-1' }),
      );
      const table = await curl(`${url}/ada/villes/r/0.csv`);
      expect(table.headers['content-type']).toBe('text/csv; charset=iso-8859-1');
      expect(table.body.equals(latin)).toBe(true);
      expect(table.headers['content-disposition']).toBe(
        `attachment; filename="villes-e.csv"; filename*=UTF-8''villes-%C3%A9.csv`,
      );
      // curl reads `filename` only (its manual: no filename*); wget reads filename*.
      const address = `${url}/ada/villes/r/0.csv`;
      expect(await savedBy(CURL, ['--noproxy', '*', '-sSOJ', address])).toEqual(['villes-e.csv']);
      if (has(WGET))
        expect(await savedBy(WGET, ['--no-proxy', '-q', '--content-disposition', address])).toEqual(
          ['villes-é.csv'],
        );
      // A name with quotes, a semicolon, a control character and a mark that turns the
      // text's direction: curl saves it under the ASCII name, wget under its own.
      await published(
        url,
        jwt,
        tablePackage('quoted', 'Über "x";y\u0007\u202e.csv', Buffer.from('a\n1\n')),
      );
      const quoted = `${url}/ada/quoted/r/0.csv`;
      expect((await curl(quoted)).headers['content-disposition']).toBe(
        `attachment; filename="Uber _x_;y.csv"; filename*=UTF-8''%C3%9Cber%20%22x%22%3By.csv`,
      );
      expect(await savedBy(CURL, ['--noproxy', '*', '-sSOJ', quoted])).toEqual(['Uber _x_;y.csv']);
      if (has(WGET))
        expect(await savedBy(WGET, ['--no-proxy', '-q', '--content-disposition', quoted])).toEqual([
          'Über "x";y.csv',
        ]);
      // Its copies are the hub's, in UTF-8.
      const copy = await curl(`${url}/ada/villes/r/table_csv.csv`);
      expect(copy.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(copy.body.toString('utf8')).toContain('São Paulo');
      // The encoding the hub detected, where none was declared, labels it as well.
      await published(url, jwt, tablePackage('detected', 'villes.csv', latin));
      const described = JSON.parse(
        (await curl(`${url}/ada/detected/datapackage.json`)).body.toString(),
      ) as { resources: { encoding?: string }[] };
      const detected = described.resources[0]?.encoding ?? '';
      expect(detected).not.toMatch(/utf-?8/i);
      expect((await curl(`${url}/ada/detected/r/0.csv`)).headers['content-type']).toBe(
        `text/csv; charset=${detected.toLowerCase()}`,
      );
    });
  });

  it('sends Vary with the credential headers on private and public reads, pages and the API', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await published(url, jwt, CITIES_DIR);
      await published(url, jwt, tablePackage('hidden', 'secret.csv', Buffer.from('a\n1\n')), {
        findability: 'private',
      });
      const vary = (answer: Answer) =>
        (answer.headers.vary ?? '').split(',').map((name) => name.trim().toLowerCase());
      const credentials = [['-H', `Auth-Token: ${jwt}`], ['-b', `data_session=${jwt}`], []];
      for (const path of [
        '/ada/hidden/r/0.csv',
        '/ada/hidden/datapackage.json',
        '/ada/world-cities/r/1.csv',
        '/ada/world-cities/datapackage.json',
        '/ada/world-cities',
        '/ada',
        '/auth/check',
        '/metastore/search?q=cities',
      ])
        for (const credential of credentials) {
          const answer = await curl(`${url}${path}`, ...credential);
          expect(answer.status, `${path} ${credential.join(' ')}`).toBe(
            path.startsWith('/ada/hidden') && credential.length === 0 ? 404 : 200,
          );
          expect(vary(answer), path).toEqual(
            expect.arrayContaining(['auth-token', 'cookie', 'authorization']),
          );
        }
      // The pages' fixed files are the same for everyone.
      expect((await curl(`${url}/static/hub.css`)).headers.vary).toBeUndefined();
    });
  });

  it("reads a large file, which a bucket's hub may send to the bucket, the same way", async () => {
    await withHub({}, async ({ url }) => {
      // Over 1 MB: on S3 a plain GET is a redirect to the bucket, with the same name and type.
      const rows = Array.from({ length: 80_000 }, (_, i) => `${String(i)},row ${String(i)}`);
      const bytes = Buffer.from(`n,label\n${rows.join('\n')}\n`);
      expect(bytes.length).toBeGreaterThan(1024 * 1024);
      await published(url, await browserLogin(url), tablePackage('large', 'large.csv', bytes));
      const address = `${url}/ada/large/r/0.csv`;
      const size = String(bytes.length);
      const bucket = process.env.DATA_TEST_STORAGE === 's3';
      expect((await curl(address)).status).toBe(bucket ? 302 : 200);
      const whole = await curl(address, '-L');
      expect(whole.status).toBe(200);
      expect(whole.body.equals(bytes)).toBe(true);
      expect(whole.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(whole.headers['content-disposition']).toBe('attachment; filename="large.csv"');
      expect(await savedBy(CURL, ['--noproxy', '*', '-sSLOJ', address])).toEqual(['large.csv']);
      const one = await curl(address, '-L', '-r', '1000000-1000009');
      expect(one.status).toBe(206);
      expect(one.body.equals(bytes.subarray(1_000_000, 1_000_010))).toBe(true);
      // Answered by the hub itself: HEAD, several ranges, conditions.
      const head = await curl(address, '-I');
      expect(head.status).toBe(200);
      expect(head.headers['content-length']).toBe(size);
      const several = await curl(address, '-r', '0-9,1048576-1048585');
      expect(several.status).toBe(206);
      const parts = parseByteranges(several.headers['content-type'] ?? '', several.body);
      expect(parts.map((part) => part.body)).toEqual([
        bytes.subarray(0, 10),
        bytes.subarray(1_048_576, 1_048_586),
      ]);
      expect(
        (await curl(address, '-H', `If-None-Match: W/${head.headers.etag ?? ''}`)).status,
      ).toBe(304);
      const ranged = await curl(address, '-r', '0-9', '-H', `If-Range: ${head.headers.etag ?? ''}`);
      expect(ranged.status).toBe(206);
      expect(ranged.body.equals(bytes.subarray(0, 10))).toBe(true);
    });
  });
});

describe.skipIf(!has(CURL))('copies not made yet, with curl', () => {
  it('answers a HEAD with the length, and a Range with the right bytes, of a copy not made yet', async () => {
    await withHub({}, async (running) => {
      const { url, hub } = running;
      await published(url, await browserLogin(url), pricesPackage('prices', 3000));
      await afterPublication(running);
      const csv = `${url}/ada/prices/r/table_csv.csv`;
      const json = `${url}/ada/prices/r/table.json`;
      expect(hub.copies.made).toBe(0);
      const head = await curl(csv, '-I');
      expect(head.status).toBe(200);
      expect(hub.copies.made).toBe(1);
      const whole = await curl(csv);
      expect(whole.body.toString()).toMatch(/^id,name,price\n0,item 0,0.5\n/);
      expect(head.headers['content-length']).toBe(String(whole.body.length));
      expect(head.headers.etag).toBe(whole.headers.etag);
      expect(head.headers['content-disposition']).toBe('attachment; filename="table_csv.csv"');
      // A Range of a copy nobody asked for yet: the copy is made, then the range is sent.
      const part = await curl(json, '-r', '100-199');
      expect(part.status).toBe(206);
      expect(hub.copies.made).toBe(2);
      const full = await curl(json);
      expect(part.headers['content-range']).toBe(`bytes 100-199/${String(full.body.length)}`);
      expect(part.body.equals(full.body.subarray(100, 200))).toBe(true);
      // A conditional request of one not made yet: answered by the whole copy's validators.
      const zip = `${url}/ada/prices/r/prices_zip.zip`;
      const unchanged = await curl(zip, '-H', 'If-None-Match: *');
      expect(unchanged.status).toBe(304);
      expect(unchanged.headers.etag).toMatch(/^"[^"]+"$/);
      // A plain GET of one not made yet still streams as it is made.
      await hub.copies.idle();
      expect(hub.copies.made).toBe(3);
    });
  });

  it('answers HEAD and ranges of a copy too large to keep from one making, with the same validators', async () => {
    // As `data serve --derived-cache-mb 0`: no copy is kept in the cache.
    await withHub({ derivedCacheBytes: 0 }, async (running) => {
      const { url, hub } = running;
      await published(url, await browserLogin(url), pricesPackage('prices', 3000));
      await afterPublication(running);
      const json = `${url}/ada/prices/r/table.json`;
      const head = await curl(json, '-I');
      expect(head.status).toBe(200);
      const etag = head.headers.etag ?? '';
      const lastModified = head.headers['last-modified'] ?? '';
      expect(etag).toMatch(/^"[^"]+"$/);
      const length = Number(head.headers['content-length']);
      expect(length).toBeGreaterThan(1000);
      const several = await curl(json, '-r', '0-0,-2');
      expect(several.status).toBe(206);
      const parts = parseByteranges(several.headers['content-type'] ?? '', several.body);
      expect(parts.map((part) => part.body.toString())).toEqual(['[', ']\n']);
      expect(parts[1]?.range).toBe(
        `bytes ${String(length - 2)}-${String(length - 1)}/${String(length)}`,
      );
      // Two ranges asked apart, and If-Range with the tag and the date the HEAD gave.
      const one = await curl(json, '-r', '0-9');
      const two = await curl(json, '-r', '10-19');
      expect([one.status, two.status]).toEqual([206, 206]);
      expect([one.headers.etag, two.headers.etag]).toEqual([etag, etag]);
      expect(two.headers['last-modified']).toBe(lastModified);
      for (const ifRange of [etag, lastModified]) {
        const part = await curl(json, '-r', '5-14', '-H', `If-Range: ${ifRange}`);
        expect(part.status, ifRange).toBe(206);
        expect(part.body.equals(Buffer.concat([one.body, two.body]).subarray(5, 15))).toBe(true);
      }
      expect((await curl(json, '-H', `If-None-Match: ${etag}`)).status).toBe(304);
      const whole = await curl(json);
      expect(whole.body.length).toBe(length);
      expect(whole.headers.etag).toBe(etag);
      await hub.copies.idle();
      // Not kept in the cache, but held a short while: one making answered every request.
      expect(hub.copies.made).toBe(1);
    });
  });

  it.skipIf(!has(OGRINFO))("is read by GDAL's /vsicurl/ from a copy not made yet", async () => {
    await withHub({}, async (running) => {
      const { url, hub } = running;
      await published(url, await browserLogin(url), pricesPackage('prices', 3000));
      await afterPublication(running);
      const address = `${url}/ada/prices/r/table_csv.csv`;
      const { code, stdout, stderr } = await run(
        OGRINFO,
        ['-ro', '-al', '-so', `/vsicurl/${address}`],
        // No listing of the "folder" the file is in, and no other file of it asked for.
        { env: { GDAL_DISABLE_READDIR_ON_OPEN: 'EMPTY_DIR', CPL_VSIL_CURL_USE_HEAD: 'YES' } },
      );
      expect(code, stderr).toBe(0);
      expect(stdout.toString()).toMatch(/Feature Count: 3000/);
      expect(stdout.toString()).toMatch(/^price: /m);
      expect(hub.copies.made).toBe(1);
    });
  });
});
