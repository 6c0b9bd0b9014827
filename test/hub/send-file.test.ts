import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { charsetOf, contentType } from '../../packages/hub/src/content-type.js';
import {
  dispositionOf,
  MAX_RANGES,
  sendLocalFile,
  sendStored,
  type SendOptions,
} from '../../packages/hub/src/http/send-file.js';
import { FolderStorage } from '../../packages/hub/src/engines/storage/folder.js';
import type {
  ByteRange,
  Storage,
  StoredInfo,
} from '../../packages/hub/src/engines/storage/types.js';
import { parseByteranges } from '../helpers/byteranges.js';

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** One request as a client sends it, headers exactly as given (fetch would add its own). */
function ask(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(url, { method, headers }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () =>
        resolve({
          status: incoming.statusCode ?? 0,
          headers: Object.fromEntries(
            Object.entries(incoming.headers).map(([name, value]) => [name, String(value)]),
          ),
          body: Buffer.concat(chunks),
        }),
      );
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const dir = mkdtempSync(join(tmpdir(), 'data-send-file-'));
const storage = new FolderStorage(dir);
/** Under the size read whole and kept, and over it: both ways of reading are tried. */
const SMALL = randomBytes(1000);
const LARGE = randomBytes(200_000);
const MODIFIED = new Date('2026-03-01T12:00:00Z');
let server: Server;
let base = '';

beforeAll(async () => {
  for (const [name, bytes] of [
    ['small.bin', SMALL],
    ['large.bin', LARGE],
    ['empty.bin', Buffer.alloc(0)],
  ] as const) {
    writeFileSync(join(dir, 'objects', name), bytes);
    utimesSync(join(dir, 'objects', name), MODIFIED, MODIFIED);
  }
  server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://localhost');
    const name = url.pathname.slice(1);
    const options: SendOptions = {
      name: url.searchParams.get('name') ?? name,
      cache: 'public, no-cache',
      disposition: 'attachment',
    };
    const sent = url.searchParams.has('local')
      ? sendLocalFile(request, response, join(dir, 'objects', name), options)
      : sendStored(request, response, storage, `objects/${name}`, options);
    sent.catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${String((server.address() as { port: number }).port)}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  storage.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([
  ['small, from the store', 'small.bin', SMALL],
  ['large, from the store', 'large.bin', LARGE],
  ['large, from a local file', 'large.bin?local', LARGE],
])('sendStored and sendLocalFile: %s', (_title, path, bytes) => {
  const url = () => `${base}/${path}`;
  const size = String(bytes.length);

  it('sends the whole file with its length and validators, and HEAD the same headers', async () => {
    const get = await ask(url());
    expect(get.status).toBe(200);
    expect(get.body.equals(bytes)).toBe(true);
    expect(get.headers['content-length']).toBe(size);
    expect(get.headers.etag).toMatch(/^"[^"]+"$/);
    expect(get.headers['last-modified']).toBe(MODIFIED.toUTCString());
    expect(get.headers['accept-ranges']).toBe('bytes');
    expect(get.headers['content-disposition']).toBe(
      `attachment; filename="${path.split('?')[0] ?? ''}"`,
    );
    const head = await ask(url(), {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    const { date: _g, ...getHeaders } = get.headers;
    const { date: _h, ...headHeaders } = head.headers;
    expect(headHeaders).toEqual(getHeaders);
  });

  it('answers If-None-Match with the weak comparison, in lists and with *', async () => {
    const { etag = '' } = (await ask(url(), {}, 'HEAD')).headers;
    for (const header of [etag, `W/${etag}`, `"other", ${etag}`, `"a",W/${etag} , "b"`, '*']) {
      const answer = await ask(url(), { 'if-none-match': header });
      expect(answer.status, header).toBe(304);
      expect(answer.body.length).toBe(0);
      expect(answer.headers.etag).toBe(etag);
      expect(answer.headers['cache-control']).toBe('public, no-cache');
    }
    expect((await ask(url(), { 'if-none-match': '"other", W/"another"' })).status).toBe(200);
    // fetch() sends Cache-Control: no-cache with any condition: a directive for caches.
    const fromFetch = { 'if-none-match': etag, 'cache-control': 'no-cache', pragma: 'no-cache' };
    expect((await ask(url(), fromFetch)).status).toBe(304);
    // If-None-Match is read instead of If-Modified-Since when both are sent.
    const both = { 'if-none-match': '"other"', 'if-modified-since': MODIFIED.toUTCString() };
    expect((await ask(url(), both)).status).toBe(200);
  });

  it('answers If-Modified-Since by Last-Modified, an invalid date ignored', async () => {
    expect((await ask(url(), { 'if-modified-since': MODIFIED.toUTCString() })).status).toBe(304);
    const later = new Date(MODIFIED.getTime() + 86_400_000).toUTCString();
    expect((await ask(url(), { 'if-modified-since': later })).status).toBe(304);
    const earlier = new Date(MODIFIED.getTime() - 1000).toUTCString();
    expect((await ask(url(), { 'if-modified-since': earlier })).status).toBe(200);
    expect((await ask(url(), { 'if-modified-since': 'yesterday' })).status).toBe(200);
  });

  it('refuses If-Match by the strong comparison and If-Unmodified-Since with 412', async () => {
    const { etag = '' } = (await ask(url(), {}, 'HEAD')).headers;
    expect((await ask(url(), { 'if-match': etag })).status).toBe(200);
    expect((await ask(url(), { 'if-match': `"other", ${etag}` })).status).toBe(200);
    expect((await ask(url(), { 'if-match': '*' })).status).toBe(200);
    expect((await ask(url(), { 'if-match': `W/${etag}` })).status).toBe(412);
    expect((await ask(url(), { 'if-match': '"other"' })).status).toBe(412);
    const earlier = new Date(MODIFIED.getTime() - 1000).toUTCString();
    expect((await ask(url(), { 'if-unmodified-since': earlier })).status).toBe(412);
    const same = MODIFIED.toUTCString();
    expect((await ask(url(), { 'if-unmodified-since': same })).status).toBe(200);
  });

  it('sends one range, a suffix longer than the file as the whole, and 416 past the end', async () => {
    const one = await ask(url(), { range: 'bytes=10-19' });
    expect(one.status).toBe(206);
    expect(one.headers['content-range']).toBe(`bytes 10-19/${size}`);
    expect(one.headers['content-length']).toBe('10');
    expect(one.body.equals(bytes.subarray(10, 20))).toBe(true);
    const tail = await ask(url(), { range: 'bytes=-5' });
    expect(tail.body.equals(bytes.subarray(-5))).toBe(true);
    const longer = await ask(url(), { range: `bytes=-${String(bytes.length * 2)}` });
    expect(longer.status).toBe(206);
    expect(longer.headers['content-range']).toBe(`bytes 0-${String(bytes.length - 1)}/${size}`);
    expect(longer.body.equals(bytes)).toBe(true);
    const past = await ask(url(), { range: `bytes=${size}-` });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe(`bytes */${size}`);
    expect(past.body.length).toBe(0);
  });

  it('sends several ranges as multipart/byteranges, byte for byte, overlapping ones combined', async () => {
    const answer = await ask(url(), { range: 'bytes=0-9, 100-199,-7' });
    expect(answer.status).toBe(206);
    expect(answer.headers['content-length']).toBe(String(answer.body.length));
    const parts = parseByteranges(answer.headers['content-type'] ?? '', answer.body);
    expect(parts.map((part) => part.range)).toEqual([
      `bytes 0-9/${size}`,
      `bytes 100-199/${size}`,
      `bytes ${String(bytes.length - 7)}-${String(bytes.length - 1)}/${size}`,
    ]);
    expect(parts[0]?.body.equals(bytes.subarray(0, 10))).toBe(true);
    expect(parts[1]?.body.equals(bytes.subarray(100, 200))).toBe(true);
    expect(parts[2]?.body.equals(bytes.subarray(-7))).toBe(true);
    expect(parts[0]?.type).toBe('application/octet-stream');
    // Overlapping and adjacent: one range.
    const combined = await ask(url(), { range: 'bytes=0-9,5-19,20-29' });
    expect(combined.status).toBe(206);
    expect(combined.headers['content-range']).toBe(`bytes 0-29/${size}`);
    expect(combined.body.equals(bytes.subarray(0, 30))).toBe(true);
  });

  it('ignores a Range of another unit, an invalid one, or more than MAX_RANGES: the whole 200', async () => {
    const many = Array.from(
      { length: MAX_RANGES + 1 },
      (_, i) => `${String(i * 4)}-${String(i * 4 + 1)}`,
    );
    for (const range of [
      'items=0-5',
      'bytes=5-2',
      'bytes=abc',
      'bytes=-',
      `bytes=${many.join(',')}`,
    ]) {
      const answer = await ask(url(), { range });
      expect(answer.status, range).toBe(200);
      expect(answer.body.equals(bytes), range).toBe(true);
    }
    // A HEAD has no ranges (RFC 9110 14.2): its headers are those of the whole GET.
    const head = await ask(url(), { range: 'bytes=0-9' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(size);
  });

  it('honours If-Range only for the same strong tag or the exact Last-Modified', async () => {
    const { etag = '' } = (await ask(url(), {}, 'HEAD')).headers;
    const range = 'bytes=0-9';
    expect((await ask(url(), { range, 'if-range': etag })).status).toBe(206);
    expect((await ask(url(), { range, 'if-range': MODIFIED.toUTCString() })).status).toBe(206);
    for (const ifRange of ['"other"', `W/${etag}`, new Date(0).toUTCString()]) {
      const answer = await ask(url(), { range, 'if-range': ifRange });
      expect(answer.status, ifRange).toBe(200);
      expect(answer.body.equals(bytes)).toBe(true);
    }
  });
});

describe('sendStored: names and types', () => {
  it('sends an empty file whole, whatever range is asked but one past its end', async () => {
    expect((await ask(`${base}/empty.bin`, { range: 'bytes=-5' })).status).toBe(200);
    const past = await ask(`${base}/empty.bin`, { range: 'bytes=0-' });
    expect(past.status).toBe(416);
    expect(past.headers['content-range']).toBe('bytes */0');
  });

  it('names the file with filename* beyond ASCII, and an ASCII filename beside it', async () => {
    const answer = await ask(`${base}/small.bin?name=${encodeURIComponent('données-é.csv')}`);
    expect(answer.headers['content-disposition']).toBe(
      `attachment; filename="donnees-e.csv"; filename*=UTF-8''donn%C3%A9es-%C3%A9.csv`,
    );
    expect(answer.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(dispositionOf('城市.csv', 'inline')).toBe(
      `inline; filename="__.csv"; filename*=UTF-8''%E5%9F%8E%E5%B8%82.csv`,
    );
    // `"` and `%`, which curl -OJ does not read back, are `_` in the ASCII name only.
    expect(dispositionOf('a "b".json', 'attachment')).toBe(
      `attachment; filename="a _b_.json"; filename*=UTF-8''a%20%22b%22.json`,
    );
    expect(dispositionOf('50%x.csv', 'attachment')).toBe(
      `attachment; filename="50_x.csv"; filename*=UTF-8''50%25x.csv`,
    );
    // Control characters and the marks that turn the text's direction are in neither.
    expect(dispositionOf('evil\u202etxt\u2066.exe\u0007\u0085', 'attachment')).toBe(
      'attachment; filename="eviltxt.exe"',
    );
  });

  it("labels text with its resource's encoding", () => {
    expect(contentType('cities.csv', 'iso-8859-1')).toBe('text/csv; charset=iso-8859-1');
    expect(contentType('cities.csv', 'Windows-1252')).toBe('text/csv; charset=windows-1252');
    expect(contentType('cities.tsv')).toBe('text/tab-separated-values; charset=utf-8');
    expect(contentType('cities.csv', 'utf8')).toBe('text/csv; charset=utf-8');
    expect(contentType('cities.json', 'iso-8859-1')).toBe('application/json');
    expect(charsetOf('no-such-encoding')).toBe('utf-8');
    expect(charsetOf('utf-8; evil=1')).toBe('utf-8');
  });
});

/** A store of one file, told by what it says of it; `read` as the test gives it. */
function oneFileStore(info: StoredInfo, read: (range?: ByteRange) => Promise<Readable>): Storage {
  const store = { location: `memory-${info.version}`, stat: () => Promise.resolve(info), read };
  return store as unknown as Storage;
}

/** Answers one request with sendStored of a store, the promise it settles with kept. */
async function answeredBy(
  store: Storage,
  headers: Record<string, string>,
  onResponse: (response: ServerResponse) => void = () => undefined,
): Promise<{ answer: Promise<Answer>; sent: Promise<unknown> }> {
  let sent: Promise<unknown> = Promise.resolve();
  const settled = new Promise<void>((resolve) => {
    const own = createServer((request, response) => {
      onResponse(response);
      sent = sendStored(request, response, store, 'file', { name: 'file.bin' }).catch(
        (error: unknown) => {
          response.destroy();
          return error;
        },
      );
      resolve();
    });
    own.listen(0, '127.0.0.1', () => {
      const port = String((own.address() as { port: number }).port);
      answer = ask(`http://127.0.0.1:${port}/file`, headers).finally(() => own.close());
      answer.catch(() => own.close());
    });
  });
  let answer: Promise<Answer> = new Promise(() => undefined);
  await settled;
  return { answer, sent };
}

describe('sendStored: ETags and streams', () => {
  it('gives two files of one size changed in the same second other ETags, by their store version', async () => {
    const same = { size: 100, modified: new Date('2026-03-01T12:00:00.100Z') };
    const bytes = () => Promise.resolve(Readable.from([Buffer.alloc(100)]));
    const tags: string[] = [];
    for (const version of ['"abc":100', '"abd":100']) {
      const { answer } = await answeredBy(oneFileStore({ ...same, version }, bytes), {});
      const { status, headers } = await answer;
      expect(status).toBe(200);
      expect(headers['last-modified']).toBe('Sun, 01 Mar 2026 12:00:00 GMT');
      tags.push(headers.etag ?? '');
    }
    expect(tags[0]).toMatch(/^"64-[\w-]{16}"$/);
    expect(tags[0]).not.toBe(tags[1]);
  });

  it("destroys the first range's stream when the client went before the parts began", async () => {
    const opened: Readable[] = [];
    let response: ServerResponse | undefined;
    const store = oneFileStore({ size: 100_000, modified: new Date(), version: 'v' }, (range) => {
      // The client goes once the first range is opened, before the status is written.
      response?.destroy();
      const stream = Readable.from([Buffer.alloc((range?.end ?? 0) - (range?.start ?? 0) + 1)]);
      opened.push(stream);
      return Promise.resolve(stream);
    });
    const { answer, sent } = await answeredBy(store, { Range: 'bytes=0-9,90000-90009' }, (r) => {
      response = r;
    });
    await expect(answer).rejects.toThrow();
    await sent;
    expect(opened).toHaveLength(1);
    expect(opened[0]?.destroyed).toBe(true);
  });
});
