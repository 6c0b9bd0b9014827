import { join } from 'node:path';
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delay, http, HttpResponse } from 'msw';
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { stripVTControlCharacters } from 'node:util';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setupServer } from 'msw/node';
import busboy from 'busboy';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { humanBytes } from '../../packages/cli/src/output/units.js';
import { runCli } from '../helpers/cli.js';
import { hubUnreachable, serviceTokens, signedIn, signedOut } from '../helpers/msw/auth.js';
import { HUB } from '../helpers/msw/hub.js';
import {
  flowStatus,
  presignEcho,
  publicationDone,
  presignAnswering,
  publishingHub,
  rawstoreReply,
  sourceAccepted,
  sourceAnswering,
} from '../helpers/msw/publish.js';

const API = HUB;
const EXAMPLES = join(import.meta.dirname, '../../examples');
const SECRET = 'eyJhbGciOiJSUzI1NiJ9.eyJleHAiOjk5OTk5OTk5OTl9.c2VjcmV0LXNpZ25hdHVyZQ';
/** The hub signs nothing here: every object is public. */
const server = setupServer(presignEcho());

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

async function data(
  args: string[],
  env: Record<string, string> = {},
  {
    through = 'msw',
    tty = false,
    signal,
  }: { through?: 'msw' | 'sockets'; tty?: boolean; signal?: AbortSignal } = {},
) {
  const result = await runCli(args, {
    tty,
    env: { DATA_API: API, DATA_TOKEN: SECRET, ...env },
    ...(through === 'msw' ? { fetch: globalThis.fetch } : {}),
    ...(signal ? { signal } : {}),
  });
  expect(result.out + result.err).not.toContain(SECRET);
  return result;
}

const authenticated = signedIn();
const authorizeOk = serviceTokens();
const sourceOk = sourceAccepted();
const statusDone = publicationDone();
const CITIES = join(EXAMPLES, 'cities');

/** A package whose table is large enough to start uploading before its digest. */
function largePackage(): { dir: string; table: Buffer; md5: string } {
  const dir = mkdtempSync(join(tmpdir(), 'data-large-'));
  const rows = Array.from({ length: 700_000 }, (_, id) => `${String(id)},value ${String(id)}`);
  const table = Buffer.from(`id,name\n${rows.join('\n')}\n`);
  writeFileSync(join(dir, 'table.csv'), table);
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({ name: 'world-cities', resources: [{ name: 'table', path: 'table.csv' }] }),
  );
  return { dir, table, md5: createHash('md5').update(table).digest('base64') };
}

interface AuthorizeBody {
  digest_after?: boolean;
  filedata: Record<string, { md5?: string; head_md5?: string; length: number }>;
}

/**
 * A hub that takes digests after the bytes: entries without `md5` get forms posted to
 * /later, with `may_exist` when given; the others are answered as `rawstoreReply` does,
 * `exists` for the paths in `held`.
 */
function digestAfterHub(held: string[] = [], mayExist?: boolean) {
  const bodies: AuthorizeBody[] = [];
  const handler = http.post(`${API}/rawstore/authorize`, async ({ request }) => {
    const body = (await request.json()) as AuthorizeBody;
    bodies.push(body);
    const filedata = Object.fromEntries(
      Object.entries(body.filedata).map(([path, entry]) => [
        path,
        entry.md5 === undefined && body.digest_after
          ? {
              digest: 'after',
              ...(mayExist === undefined ? {} : { may_exist: mayExist }),
              upload_url: `${API}/later`,
              upload_query: { Policy: 'p' },
            }
          : {
              upload_url: `${API}/upload`,
              upload_query: { key: `${path.replace(/\W/g, '')}.csv`, 'Content-MD5': entry.md5 },
              exists: held.includes(path),
            },
      ]),
    );
    return HttpResponse.json({ filedata });
  });
  return { bodies, handler };
}

interface PostedForm {
  names: string[];
  md5: unknown;
  crc32?: string;
  bytes: number;
}

/** A multipart form's field names in order, its digest fields and its file's size. */
async function readForm(request: Request): Promise<PostedForm> {
  const form: PostedForm = { names: [], md5: undefined, bytes: 0 };
  const parser = busboy({ headers: Object.fromEntries(request.headers) });
  parser.on('field', (name, value) => {
    form.names.push(name);
    if (name === 'Content-MD5') form.md5 = value;
    if (name === 'x-amz-checksum-crc32') form.crc32 = value;
  });
  parser.on('file', (name, stream) => {
    form.names.push(name);
    stream.on('data', (chunk: Buffer) => (form.bytes += chunk.length));
  });
  const done = new Promise((resolve) => parser.on('close', resolve));
  parser.end(Buffer.from(await request.arrayBuffer()));
  await done;
  return form;
}

/**
 * Records each form posted to `path`: its field names in order, its digests and its file.
 * At /later it answers as a hub does, with where it stored the bytes and their MD5.
 */
function formsAt(path: string, stored = { object_url: `${API}/upload/x.csv`, md5: 'x' }) {
  const forms: PostedForm[] = [];
  const handler = http.post(`${API}${path}`, async ({ request }) => {
    forms.push(await readForm(request));
    return path === '/later' ? HttpResponse.json(stored) : new HttpResponse(null, { status: 204 });
  });
  return { forms, handler };
}

describe('publish a large file before its digest', () => {
  it.each([undefined, true])(
    'posts it at once through a form whose digest follows the file, and only once (may_exist: %s)',
    async (mayExist) => {
      const { dir, table, md5 } = largePackage();
      const hub = digestAfterHub([], mayExist);
      const later = formsAt('/later');
      const upload = formsAt('/upload');
      server.use(
        authenticated,
        authorizeOk,
        hub.handler,
        later.handler,
        upload.handler,
        sourceOk,
        statusDone,
      );
      const { code, out } = await data(['--json', 'publish', dir]);
      expect(code).toBe(0);
      expect(JSON.parse(out)).toMatchObject({ uploaded: ['datapackage.json', 'table.csv'] });
      // Asked for first, without a digest; the small descriptor is not worth an early form.
      expect(hub.bodies[0]).toMatchObject({
        digest_after: true,
        filedata: { 'table.csv': { length: table.length } },
      });
      expect(Object.keys(hub.bodies[0]?.filedata ?? {})).toEqual(['table.csv']);
      expect(hub.bodies[0]?.filedata['table.csv']).not.toHaveProperty('md5');
      // With the MD5 of its first 64 KiB, by which the hub tells files of one length apart.
      const head = createHash('md5').update(table.subarray(0, 65_536)).digest('base64');
      expect(hub.bodies[0]?.filedata['table.csv']).toMatchObject({ head_md5: head });
      expect(later.forms).toEqual([
        { names: ['Policy', 'file', 'Content-MD5'], md5, bytes: table.length },
      ]);
      expect(upload.forms.map((form) => form.bytes)).toEqual([
        statSync(join(dir, 'datapackage.json')).size,
      ]);
    },
  );

  it('sends a file the hub cannot hold without hashing it first: its CRC32 follows it', async () => {
    const { dir, table, md5 } = largePackage();
    const hub = digestAfterHub([], false);
    const objectUrl = `${API}/rawstore/objects/${Buffer.from(md5, 'base64').toString('hex')}.csv`;
    const later = formsAt('/later', { object_url: objectUrl, md5 });
    const upload = formsAt('/upload');
    let mapping: unknown;
    server.use(
      authenticated,
      authorizeOk,
      hub.handler,
      later.handler,
      upload.handler,
      http.post(`${API}/source/upload`, async ({ request }) => {
        const spec = (await request.json()) as {
          inputs: { parameters: { 'resource-mapping': unknown } }[];
        };
        mapping = spec.inputs[0]?.parameters['resource-mapping'];
        return HttpResponse.json({ success: true, flow_id: 'u1/world-cities/1', errors: [] });
      }),
      statusDone,
    );
    const { code, out } = await data(['--json', 'publish', dir]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ uploaded: ['datapackage.json', 'table.csv'] });
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(table));
    expect(later.forms).toEqual([
      {
        names: ['Policy', 'x-amz-checksum-algorithm', 'file', 'x-amz-checksum-crc32'],
        md5: undefined,
        crc32: crc.toString('base64'),
        bytes: table.length,
      },
    ]);
    // Never asked for with its digest: the hub's answer to the upload named the object.
    expect(hub.bodies.slice(1).map((body) => Object.keys(body.filedata))).toEqual([
      ['datapackage.json'],
    ]);
    expect(mapping).toEqual({ 'table.csv': objectUrl });
  });

  it('exits 3 when the hub does not say where it stored a file sent without its digest', async () => {
    const answers = [{}, { object_url: `${API}/x.csv` }, { object_url: `${API}/x.csv`, md5: 'x' }];
    for (const answer of answers) {
      const { dir } = largePackage();
      server.use(
        authenticated,
        authorizeOk,
        digestAfterHub([], false).handler,
        http.post(`${API}/later`, async ({ request }) => {
          await request.arrayBuffer();
          return HttpResponse.json(answer);
        }),
        formsAt('/upload').handler,
        sourceOk,
        statusDone,
      );
      const { code, err } = await data(['publish', dir]);
      expect(code, JSON.stringify(answer)).toBe(3);
      expect(err).toMatch(/error: upload table\.csv: the hub did not say where it stored the file/);
    }
  });

  it('lets the early upload go when the digest shows the hub holds the file', async () => {
    const { dir } = largePackage();
    const hub = digestAfterHub(['table.csv']);
    const upload = formsAt('/upload');
    server.use(
      authenticated,
      authorizeOk,
      hub.handler,
      http.post(`${API}/later`, async ({ request }) => {
        // The client lets this upload go half-way: its body ends in an abort.
        await request.arrayBuffer().catch(() => undefined);
        await delay('infinite');
        return HttpResponse.json({});
      }),
      upload.handler,
      sourceOk,
      statusDone,
    );
    const { code, out, err } = await data(['publish', dir]);
    expect(code).toBe(0);
    expect(err).toContain('already stored table.csv');
    expect(err).not.toContain('uploaded table.csv');
    expect(out + err).not.toMatch(/error/i);
    expect(upload.forms).toHaveLength(1);
  });

  it('hashes first on a hub that refuses entries without a digest, or asks for it first, asking once', async () => {
    const answers = [
      () => new HttpResponse('md5 is required', { status: 400 }),
      () => new HttpResponse('md5 is required', { status: 500 }),
      () => HttpResponse.json({ filedata: { 'table.csv': { digest: 'first' } } }),
    ];
    for (const answer of answers) {
      const { dir, table } = largePackage();
      let asked = 0;
      const upload = formsAt('/upload');
      server.use(
        authenticated,
        authorizeOk,
        http.post(`${API}/rawstore/authorize`, async ({ request }) => {
          const body = (await request.clone().json()) as AuthorizeBody;
          if (Object.values(body.filedata).every((entry) => entry.md5 !== undefined))
            return undefined;
          asked++;
          return answer();
        }),
        rawstoreReply(false),
        upload.handler,
        sourceOk,
        statusDone,
      );
      const { code, out } = await data(['--json', 'publish', dir]);
      expect(code).toBe(0);
      expect(asked).toBe(1);
      expect(JSON.parse(out)).toMatchObject({ uploaded: ['datapackage.json', 'table.csv'] });
      expect(upload.forms.map((form) => form.bytes)).toContain(table.length);
      expect(upload.forms.every((form) => form.names.at(-1) === 'file')).toBe(true);
    }
  });

  it('names the early upload the hub failed, and exits 3', async () => {
    const { dir } = largePackage();
    const hub = digestAfterHub();
    server.use(
      authenticated,
      authorizeOk,
      hub.handler,
      http.post(`${API}/later`, () => new HttpResponse('broken', { status: 500 })),
      formsAt('/upload').handler,
      sourceOk,
      statusDone,
    );
    const { code, err } = await data(['publish', dir]);
    expect(code).toBe(3);
    expect(err).toMatch(/error: upload table\.csv: 500 broken/);
  });
});

describe('publish against a failing hub', () => {
  it('names the step and what the hub said on a quota refusal', async () => {
    server.use(
      authenticated,
      authorizeOk,
      http.post(
        `${API}/rawstore/authorize`,
        () => new HttpResponse('Max storage for user exceeded plan limit (100MB)', { status: 403 }),
      ),
    );
    const { code, err } = await data(['publish', CITIES]);
    // A refusal (exit 1), not a failure of the hub: asking again cannot help.
    expect(code).toBe(1);
    expect(err.split('\n').find((line) => line.startsWith('error:'))).toBe(
      'error: http://hub.test refused to take the upload: Max storage for user exceeded plan limit (100MB)',
    );
    expect(err).not.toMatch(/at \w+ \(/);
  });

  it('names a hub answer without a usable upload form, exit 3, not a bug', async () => {
    for (const entry of [
      {},
      { upload_url: 7, upload_query: {} },
      { upload_url: `${API}/upload` },
    ]) {
      server.use(
        authenticated,
        authorizeOk,
        http.post(`${API}/rawstore/authorize`, async ({ request }) => {
          const body = (await request.json()) as { filedata: Record<string, unknown> };
          const filedata = Object.fromEntries(
            Object.keys(body.filedata).map((path) => [path, entry]),
          );
          return HttpResponse.json({ filedata });
        }),
      );
      const { code, err } = await data(['publish', CITIES]);
      expect(code).toBe(3);
      expect(err).toMatch(/error: rawstore authorize: the hub gave no upload form for /);
    }
  });

  it('treats /auth/authorize without a token as not authenticated', async () => {
    server.use(
      authenticated,
      http.get(`${API}/auth/authorize`, () => HttpResponse.json({ permissions: {} })),
    );
    const { code, err } = await data(['publish', CITIES]);
    expect(code).toBe(4);
    expect(err).toContain(`${API} refused the token in DATA_TOKEN`);
  });

  it('reads JSON sent as text/html, skips stored files, and reports success', async () => {
    server.use(authenticated, authorizeOk, rawstoreReply(true, 'text/html'), sourceOk, statusDone);
    const { code, out } = await data(['--json', 'publish', CITIES]);
    expect(code).toBe(0);
    expect(JSON.parse(out)).toMatchObject({
      state: 'SUCCEEDED',
      uploaded: [],
      skipped: ['datapackage.json', 'data/countries.csv', 'data/cities.csv'],
    });
  });

  it('sends presigned URLs of the stored files in the flow spec', async () => {
    let spec: { inputs: { url: string; parameters: { 'resource-mapping': object } }[] } = {
      inputs: [],
    };
    server.use(
      authenticated,
      authorizeOk,
      rawstoreReply(true),
      statusDone,
      http.get(`${API}/rawstore/presign`, ({ request }) => {
        const query = new URL(request.url).searchParams;
        expect([query.get('ownerid'), request.headers.get('auth-token')]).toEqual([
          'u1',
          'service-token',
        ]);
        return HttpResponse.json({ url: `${query.get('url') ?? ''}?signature=s` });
      }),
      http.post(`${API}/source/upload`, async ({ request }) => {
        spec = (await request.json()) as typeof spec;
        return HttpResponse.json({ success: true, flow_id: 'u1/world-cities/1', errors: [] });
      }),
    );
    expect((await data(['publish', CITIES])).code).toBe(0);
    expect(spec.inputs[0]?.url).toBe(`${API}/upload/datapackagejson.csv?signature=s`);
    expect(spec.inputs[0]?.parameters['resource-mapping']).toEqual({
      'data/countries.csv': `${API}/upload/datacountriescsv.csv?signature=s`,
      'data/cities.csv': `${API}/upload/datacitiescsv.csv?signature=s`,
    });
  });

  it('shows the reasons of a 200 with success: false', async () => {
    server.use(
      authenticated,
      authorizeOk,
      rawstoreReply(true),
      sourceAnswering({ success: false, errors: ['dataset name is taken'] }),
    );
    const { code, err } = await data(['publish', CITIES]);
    expect(code).toBe(3);
    expect(err.split('\n').find((line) => line.startsWith('error:'))).toBe(
      'error: http://hub.test refused to publish the package: dataset name is taken',
    );
  });

  // Answers of the wrong shape are the hub's fault (ServerError, E_API, exit 3) as on the
  // other reads, where they were an ApiError of status 200 that no hub had sent.
  it.each([
    [
      'a presign answer without a "url"',
      presignAnswering({}),
      'rawstore presign: answered a document that is not a presigned URL',
    ],
    [
      'a presign answer whose "url" is not text',
      presignAnswering({ url: 7 }),
      'rawstore presign: answered a document that is not a presigned URL',
    ],
    [
      'a source upload that succeeds without a revision',
      sourceAnswering({ success: true, errors: [] }),
      'source upload: answered a document that is not a publication',
    ],
  ])('names %s as a malformed answer, exit 3', async (_what, handler, message) => {
    server.use(handler, authenticated, authorizeOk, rawstoreReply(true), sourceOk, statusDone);
    const human = await data(['publish', CITIES]);
    expect(human.code).toBe(3);
    expect(human.err.split('\n').find((line) => line.startsWith('error:'))).toBe(
      `error: ${message}`,
    );
    const json = await data(['publish', CITIES, '--json']);
    expect(json.code).toBe(3);
    expect(JSON.parse(json.out)).toMatchObject({ error: { code: 'E_API', message } });
  });

  it('retries uploads after a reset connection and a 503 with Retry-After', async () => {
    let attempts = 0;
    server.use(
      ...publishingHub(),
      http.post(`${API}/upload`, async ({ request }) => {
        await request.arrayBuffer();
        attempts++;
        if (attempts === 1) return HttpResponse.error();
        if (attempts === 2)
          return new HttpResponse('busy', { status: 503, headers: { 'Retry-After': '1' } });
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { code, out } = await data(['--json', 'publish', CITIES]);
    expect(code).toBe(0);
    expect(attempts).toBe(5);
    expect(JSON.parse(out)).toMatchObject({
      uploaded: ['datapackage.json', 'data/countries.csv', 'data/cities.csv'],
    });
  });

  it('stops after the last retry on a server that keeps failing', async () => {
    server.use(
      authenticated,
      authorizeOk,
      rawstoreReply(false),
      http.post(`${API}/upload`, () => new HttpResponse('broken', { status: 500 })),
    );
    const { code, err } = await data(['publish', CITIES]);
    expect(code).toBe(3);
    expect(err).toMatch(/error: upload [\w/.]+: 500 broken/);
  });

  it('does not repeat an upload the hub refused for lack of storage space (507)', async () => {
    let attempts = 0;
    server.use(
      authenticated,
      authorizeOk,
      rawstoreReply(false),
      http.post(`${API}/upload`, async ({ request }) => {
        await request.arrayBuffer();
        attempts++;
        return new HttpResponse('the hub has run out of storage space', { status: 507 });
      }),
    );
    const { code, err } = await data(['publish', CITIES]);
    expect(code).toBe(3);
    expect(err).toContain('507 the hub has run out of storage space');
    // At most one try per file (three files), where a retried status takes four each.
    expect(attempts).toBeLessThanOrEqual(3);
  });

  it('gives up on a server that takes the upload but never answers', async () => {
    let attempts = 0;
    server.use(
      authenticated,
      authorizeOk,
      rawstoreReply(false),
      http.post(`${API}/upload`, async ({ request }) => {
        await request.arrayBuffer();
        attempts++;
        await delay('infinite');
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { code, err } = await data(['publish', CITIES], { DATA_HTTP_TIMEOUT: '0.2' });
    expect(code).toBe(3);
    expect(err).toMatch(/error: upload [\w/.]+: http:\/\/hub\.test sent nothing for 0\.2 s/);
    expect(attempts).toBeGreaterThanOrEqual(4);
  });

  it('refuses a time-out that is not a number of seconds', async () => {
    const { code, err } = await data(['publish', CITIES], { DATA_HTTP_TIMEOUT: 'soon' });
    expect(code).toBe(2);
    expect(err).toContain('DATA_HTTP_TIMEOUT must be a number of seconds above 0, not "soon"');
  });

  it('shows the failed steps and their logs, and exits 1', async () => {
    server.use(
      authenticated,
      authorizeOk,
      rawstoreReply(true),
      sourceOk,
      http.get(`${API}/source/u1/world-cities/1`, () =>
        flowStatus('FAILED', {
          'u1/world-cities/1/validate': {
            title: 'Validate the data',
            status: 'FAILED',
            error_log: ['cities: Type error in the cell "x"'],
          },
        }),
      ),
    );
    const { code, out } = await data(['publish', CITIES]);
    expect(code).toBe(1);
    expect(out).toContain('Validate the data: failed');
    expect(out).toContain('Type error in the cell "x"');
  });

  it('times out on a status that never finishes', async () => {
    server.use(
      authenticated,
      authorizeOk,
      rawstoreReply(true),
      sourceOk,
      http.get(`${API}/source/u1/world-cities/1`, () => flowStatus('INPROGRESS')),
    );
    const { code, err } = await data(['publish', CITIES, '--timeout', '0.0001']);
    expect(code).toBe(3);
    expect(err).toContain('did not finish publishing');
  });

  it('does not start without a token, and exits 4 on an expired one', async () => {
    server.use(signedOut());
    const without = await data(['publish', CITIES], { DATA_TOKEN: '' });
    expect(without.code).toBe(4);
    expect(without.err).toContain('not logged in');
    expect((await data(['whoami'])).code).toBe(4);
  });

  it('says the token in DATA_TOKEN was refused, not to log in alone (which cannot help while it is set)', async () => {
    server.use(signedOut());
    for (const args of [['whoami'], ['publish', CITIES]]) {
      const { code, err } = await data(args);
      expect(code).toBe(4);
      expect(err).toContain('refused the token in DATA_TOKEN');
      // No sign-in is kept here: to unset it, then sign in.
      expect(err).toContain('or unset it and run `data login`\n');
      expect(err).not.toMatch(/hint: run `data login`/);
    }
  });

  it('says nothing answers at a wrong hub address before it says "not logged in"', async () => {
    server.use(hubUnreachable());
    for (const args of [['whoami'], ['publish', CITIES]]) {
      const { code, err } = await data(args, { DATA_TOKEN: '' });
      expect(code).toBe(3);
      expect(err).toContain(`cannot reach ${API}`);
      expect(err).toContain('hint:');
      expect(err).not.toContain('not logged in');
    }
  });

  it('names the unreachable hub on a network error', async () => {
    server.use(hubUnreachable());
    const { code, err } = await data(['whoami']);
    expect(code).toBe(3);
    expect(err).toContain('auth check: cannot reach http://hub.test');
  });
});

describe('every step of a publication, refused', () => {
  const refuse = (status: number, step: string) =>
    HttpResponse.json({ error: `${step} says no` }, { status });
  /** Refuses the service token of one service; msw passes the other on. */
  const refuseAuthorize = (service: string, status: number) =>
    http.get(`${API}/auth/authorize`, ({ request }) =>
      new URL(request.url).searchParams.get('service') === service
        ? refuse(status, 'authorize')
        : undefined,
    );
  const steps: [string, (status: number) => ReturnType<typeof http.get>][] = [
    ['auth check', (status) => http.get(`${API}/auth/check`, () => refuse(status, 'check'))],
    ['auth authorize (rawstore)', (status) => refuseAuthorize('rawstore', status)],
    [
      'rawstore authorize',
      (status) => http.post(`${API}/rawstore/authorize`, () => refuse(status, 'rawstore')),
    ],
    ['upload', (status) => http.post(`${API}/upload`, () => refuse(status, 'store'))],
    [
      'rawstore presign',
      (status) => http.get(`${API}/rawstore/presign`, () => refuse(status, 'presign')),
    ],
    ['auth authorize (source)', (status) => refuseAuthorize('source', status)],
    [
      'source upload',
      (status) => http.post(`${API}/source/upload`, () => refuse(status, 'source')),
    ],
    [
      'publication status',
      (status) => http.get(`${API}/source/u1/world-cities/1`, () => refuse(status, 'status')),
    ],
  ];
  const detail: Record<string, string> = {
    'auth check': 'check',
    'auth authorize (rawstore)': 'authorize',
    'rawstore authorize': 'rawstore',
    upload: 'store',
    'rawstore presign': 'presign',
    'auth authorize (source)': 'authorize',
    'source upload': 'source',
    'publication status': 'status',
  };
  const action: Record<string, string> = {
    'auth check': 'say who the token is',
    'auth authorize (rawstore)': 'take the upload',
    'rawstore authorize': 'take the upload',
    'auth authorize (source)': 'publish the package',
    'source upload': 'publish the package',
    'publication status': 'show the publication',
  };
  const uploads = http.post(`${API}/upload`, () => new HttpResponse(null, { status: 204 }));
  const exitFor = (step: string, status: number): number =>
    status === 401 ? 4 : status === 403 && step !== 'upload' ? 1 : 3;
  for (const [step, failing] of steps)
    for (const status of [401, 403, 404].filter((s) => !(step === 'rawstore presign' && s === 403)))
      // The hub's 403 refuses a valid credential (exit 1); a store's 403 is its failure.
      it(`${step}: ${String(status)} names the step and exits ${String(exitFor(step, status))}`, async () => {
        server.use(failing(status), ...publishingHub(), uploads);
        const { code, err } = await data(['publish', CITIES]);
        // Files upload several at a time: any of them may be the first refused.
        const where = step === 'upload' ? 'upload [\\w/.]+' : step.replace(/[()]/g, '\\$&');
        // The hub's 401 refuses the token itself: said so, naming where it came from.
        // A 403 of the hub is a refusal, said as what it would not do, in the user's words.
        const said =
          status === 401 && step !== 'upload'
            ? `^error: ${API} refused the token in DATA_TOKEN: it is unknown, revoked or expired$`
            : status === 403 && step !== 'upload'
              ? `^error: ${API} refused to ${action[step] ?? ''}: ${detail[step] ?? ''} says no$`
              : `^error: ${where}: ${String(status)} ${detail[step] ?? ''} says no$`;
        expect(err.split('\n').find((line) => line.startsWith('error:'))).toMatch(new RegExp(said));
        expect(code).toBe(exitFor(step, status));
      });

  it('names the plain URLs when the hub signs none for the token (limited to datasets)', async () => {
    const mappings: unknown[] = [];
    server.use(
      http.get(`${API}/rawstore/presign`, () => refuse(403, 'presign')),
      http.post(`${API}/source/upload`, async ({ request }) => {
        const spec = (await request.json()) as {
          inputs: { parameters: { 'resource-mapping': unknown } }[];
        };
        mappings.push(spec.inputs[0]?.parameters['resource-mapping']);
        return HttpResponse.json({ success: true, flow_id: 'u1/world-cities/1' });
      }),
      ...publishingHub(),
      uploads,
    );
    const { code, err } = await data(['publish', CITIES]);
    expect(err).not.toMatch(/^error/m);
    expect(code).toBe(0);
    const urls = Object.values(mappings[0] as Record<string, string>);
    expect(urls.length).toBeGreaterThan(0);
    for (const url of urls) expect(url).not.toContain('signature=');
  });

  it('keeps polling through a 502 and a dropped connection', async () => {
    let polls = 0;
    server.use(
      http.get(`${API}/source/u1/world-cities/1`, () => {
        polls++;
        if (polls === 1) return new HttpResponse('bad gateway', { status: 502 });
        if (polls === 2) return HttpResponse.error();
        return flowStatus('SUCCEEDED');
      }),
      ...publishingHub(),
      uploads,
    );
    const { code } = await data(['publish', CITIES]);
    expect(code).toBe(0);
    expect(polls).toBe(3);
  });
});

describe('get against a hostile hub', () => {
  it('says a dataset that is not there does not exist (or is private), exit 2, writing nothing', async () => {
    server.use(
      http.get(`${API}/ada/gone/datapackage.json`, () =>
        HttpResponse.json({ error: 'not found' }, { status: 404 }),
      ),
    );
    const cwd = mkdtempSync(join(tmpdir(), 'get-'));
    const { code, err } = await data(['get', 'ada/gone', '--out', join(cwd, 'out')]);
    expect(err).toContain('error: there is no dataset ada/gone (or it is private)');
    // Signed in (DATA_TOKEN): an organisation's private dataset shows to its members too.
    expect(err).toContain(
      "hint: check the owner and the dataset name; a private dataset shows only to its owner, an organisation's to its members too\n",
    );
    expect(code).toBe(2);
    expect(readdirSync(cwd)).toEqual([]);
    const info = await data(['info', 'ada/gone']);
    expect(info.code).toBe(2);
    expect(info.err).toContain('there is no dataset ada/gone');
  });

  for (const status of [401, 403, 500])
    it(`names the descriptor and the hub's reason on a ${String(status)}, writing nothing`, async () => {
      server.use(
        http.get(`${API}/ada/gone/datapackage.json`, () =>
          HttpResponse.json({ error: 'no such dataset' }, { status }),
        ),
      );
      const cwd = mkdtempSync(join(tmpdir(), 'get-'));
      const { code, err } = await data(['get', 'ada/gone', '--out', join(cwd, 'out')]);
      // A 401 refuses the token that went with the request, whose source it names.
      expect(err).toContain(
        status === 401
          ? `error: ${API} refused the token in DATA_TOKEN: it is unknown, revoked or expired`
          : `error: get ${API}/ada/gone/datapackage.json: ${String(status)} no such dataset`,
      );
      expect(code).toBe(status === 401 ? 4 : 3);
      expect(readdirSync(cwd)).toEqual([]);
    });

  it('names the file the hub refused, and leaves no partial file', async () => {
    server.use(
      http.get(`${API}/ada/half/datapackage.json`, () =>
        HttpResponse.json({ resources: [{ name: 'a', path: 'a.csv' }] }),
      ),
      http.get(`${API}/ada/half/a.csv`, () => new HttpResponse('forbidden', { status: 403 })),
    );
    const out = join(mkdtempSync(join(tmpdir(), 'get-')), 'out');
    const { code, err } = await data(['get', 'ada/half', '--out', out]);
    expect(err).toContain(`error: download ${API}/ada/half/a.csv: 403 forbidden`);
    expect(code).toBe(3);
    expect(readdirSync(out)).toEqual([]);
  });

  it('gives up on a hub that never sends the descriptor', async () => {
    server.use(
      http.get(`${API}/ada/mute/datapackage.json`, async () => {
        await delay('infinite');
        return HttpResponse.json({});
      }),
    );
    const out = join(mkdtempSync(join(tmpdir(), 'get-')), 'out');
    const { code, err } = await data(['get', 'ada/mute', '--out', out], {
      DATA_HTTP_TIMEOUT: '0.2',
    });
    expect(code).toBe(3);
    expect(err).toContain('get descriptor: http://hub.test sent nothing for 0.2 s');
  });

  it('refuses a descriptor whose resource path escapes the target, writing nothing', async () => {
    server.use(
      http.get(`${API}/ada/evil/datapackage.json`, () =>
        HttpResponse.json({ resources: [{ name: 'x', path: '../../escape.csv' }] }),
      ),
    );
    const cwd = mkdtempSync(join(tmpdir(), 'get-'));
    const { code, err } = await data(['get', 'ada/evil', '--out', join(cwd, 'out')]);
    expect(code).toBe(1);
    expect(err).toContain('outside the target folder');
    expect(readdirSync(cwd)).toEqual([]);
  });

  it('fetches a file that two resources share once, and keeps both resources', async () => {
    let requests = 0;
    server.use(
      http.get(`${API}/ada/twice/datapackage.json`, () =>
        HttpResponse.json({
          resources: [
            { name: 'a', path: 'data/same.csv' },
            { name: 'b', path: 'data/same.csv', schema: { fields: [{ name: 'id' }] } },
          ],
        }),
      ),
      http.get(`${API}/ada/twice/data/same.csv`, () => {
        requests++;
        return new HttpResponse('id\n1\n');
      }),
    );
    const cwd = mkdtempSync(join(tmpdir(), 'get-'));
    const { code } = await data(['get', 'ada/twice', '--out', cwd]);
    expect(code).toBe(0);
    expect(requests).toBe(1);
    expect(readFileSync(join(cwd, 'data/same.csv'), 'utf8')).toBe('id\n1\n');
    const saved = JSON.parse(readFileSync(join(cwd, 'datapackage.json'), 'utf8')) as {
      resources: unknown[];
    };
    expect(saved.resources).toHaveLength(2);
  });

  it('drops the token on a redirect to another origin and verifies hashes', async () => {
    const seen: (string | null)[] = [];
    server.use(
      http.get(`${API}/ada/ok/datapackage.json`, () =>
        HttpResponse.json({
          resources: [{ name: 'a', path: 'a.csv', hash: 'md5:00000000000000000000000000000000' }],
        }),
      ),
      http.get(`${API}/ada/ok/a.csv`, ({ request }) => {
        seen.push(request.headers.get('auth-token'));
        return new HttpResponse(null, {
          status: 302,
          headers: { Location: 'http://storage.test/a.csv' },
        });
      }),
      http.get('http://storage.test/a.csv', ({ request }) => {
        seen.push(request.headers.get('auth-token'));
        return new HttpResponse('id\n1\n');
      }),
    );
    const cwd = mkdtempSync(join(tmpdir(), 'get-'));
    const { code, err } = await data(['get', 'ada/ok', '--out', cwd]);
    expect(seen[0]).toBe(SECRET);
    expect(seen.slice(1).every((token) => token === null)).toBe(true);
    expect(code).toBe(1);
    expect(err).toContain('hash does not match');
    expect(readdirSync(cwd)).toEqual([]);
  });
});

describe('info', () => {
  it('shows a local package folder, its tables previewed, and its descriptor path alike', async () => {
    for (const target of [CITIES, join(CITIES, 'datapackage.json')]) {
      const { code, out } = await data(['info', target]);
      expect(code).toBe(0);
      expect(out).toContain('World cities and their countries');
      expect(out).toContain('Paris');
    }
  });

  it('shows on a terminal an aligned preview, human sizes, the licence, the schema and inline data', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'info-'));
    writeFileSync(
      join(cwd, 'datapackage.json'),
      JSON.stringify({
        name: 'inline',
        licenses: [{ name: 'CC-BY-4.0', title: 'Creative Commons Attribution 4.0' }],
        resources: [
          {
            name: 'people',
            data: [
              { id: 1, name: 'Ada Lovelace' },
              { id: 22, name: 'Grace' },
            ],
            schema: {
              fields: [
                { name: 'id', type: 'integer', description: 'the key' },
                { name: 'name', type: 'string' },
              ],
            },
          },
        ],
      }),
    );
    const { code, out } = await data(['info', cwd], {}, { tty: true });
    expect(code).toBe(0);
    const text = stripVTControlCharacters(out);
    expect(text).toContain('licence Creative Commons Attribution 4.0');
    expect(text).toContain('people  inline · 2 rows · inline');
    expect(text).toMatch(/ {4}id {5}integer {2}the key/);
    expect(text).toContain('    id  name');
    expect(text).toContain('    1   Ada Lovelace');
    expect(text).toContain('    22  Grace');
    const cities = stripVTControlCharacters((await data(['info', CITIES], {}, { tty: true })).out);
    expect(cities).toContain('countries  csv · 107 B · 5 rows · data/countries.csv');
  });

  it('shows a single data file as the package it would make: schema inferred, rows previewed', async () => {
    const { code, out } = await data(['--json', 'info', join(CITIES, 'data/countries.csv')]);
    expect(code).toBe(0);
    const info = JSON.parse(out) as {
      name: string;
      resources: { name: string; rows: number; fields: { name: string; type: string }[] }[];
    };
    expect(info.name).toBe('countries');
    expect(info.resources[0]).toMatchObject({ name: 'countries', rows: 5 });
    expect(info.resources[0]?.fields.map((field) => field.name)).toEqual([
      'code',
      'name',
      'continent',
    ]);
  });

  it('reads owner/dataset from the hub though a folder of that name is here without a package', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'info-'));
    mkdirSync(join(cwd, 'ada/world-cities'), { recursive: true });
    server.use(
      http.get(`${API}/ada/world-cities/datapackage.json`, () =>
        HttpResponse.json({ name: 'world-cities', title: 'From the hub', resources: [] }),
      ),
    );
    const { code, out } = await runCli(['info', 'ada/world-cities'], {
      cwd,
      env: { DATA_API: API, DATA_CONFIG_DIR: join(cwd, 'cfg') },
      fetch: globalThis.fetch,
    });
    expect(code).toBe(0);
    expect(out).toContain('From the hub');
  });

  it('sends the token to the hub only, not to a resource at another origin', async () => {
    const seen: [string, string | null][] = [];
    const csv = (url: string) =>
      http.get(url, ({ request }) => {
        seen.push([url, request.headers.get('auth-token')]);
        return new HttpResponse('id,name\n1,Ada\n');
      });
    server.use(
      http.get(`${API}/ada/mixed/datapackage.json`, () =>
        HttpResponse.json({
          resources: [
            { name: 'here', path: 'here.csv' },
            { name: 'there', path: 'http://elsewhere.test/there.csv' },
          ],
        }),
      ),
      csv(`${API}/ada/mixed/here.csv`),
      csv('http://elsewhere.test/there.csv'),
    );
    const { code } = await data(['info', 'ada/mixed']);
    expect(code).toBe(0);
    expect(seen).toEqual([
      [`${API}/ada/mixed/here.csv`, SECRET],
      ['http://elsewhere.test/there.csv', null],
    ]);
  });
});

describe('get over real sockets, through the lending transport', () => {
  const content = Buffer.from('id,name\n' + '1,Ada\n'.repeat(50_000));
  const descriptor = {
    resources: [
      {
        name: 'people',
        path: 'people.csv',
        bytes: content.length,
        hash: `md5:${createHash('md5').update(content).digest('hex')}`,
      },
    ],
  };
  let hub: Server;
  let base = '';
  const requests: { path: string; range: string | undefined; token: string | undefined }[] = [];
  let misbehave: 'stall' | 'reset' = 'stall';

  beforeAll(async () => {
    hub = createServer((request, response) => {
      const range = request.headers.range;
      requests.push({
        path: request.url ?? '',
        range,
        token: request.headers['auth-token'] as string | undefined,
      });
      if (request.url === '/ada/people/datapackage.json') {
        response.end(JSON.stringify(descriptor));
      } else if (request.url === '/ada/people/people.csv' && range) {
        const from = Number(/bytes=(\d+)-/.exec(range)?.[1]);
        response.writeHead(206, {
          'Content-Range': `bytes ${String(from)}-${String(content.length - 1)}/${String(content.length)}`,
          'Content-Length': String(content.length - from),
        });
        response.end(content.subarray(from));
      } else if (request.url === '/ada/people/people.csv') {
        response.writeHead(200, { 'Content-Length': String(content.length) });
        response.write(content.subarray(0, 100_000), () => {
          if (misbehave === 'reset') setTimeout(() => response.socket?.destroy(), 50);
        });
      } else {
        response.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${String((hub.address() as AddressInfo).port)}`;
  });
  afterAll(() => {
    hub.closeAllConnections();
    hub.close();
  });

  for (const fault of ['stall', 'reset'] as const) {
    it(`resumes with a byte range after a ${fault} in the middle of the body`, async () => {
      misbehave = fault;
      requests.length = 0;
      const out = mkdtempSync(join(tmpdir(), 'get-'));
      const { code, err } = await data(
        ['get', `${base}/ada/people`, '--out', out],
        { DATA_HTTP_TIMEOUT: '0.3' },
        { through: 'sockets' },
      );
      expect(err).not.toContain('error');
      expect(code).toBe(0);
      expect(requests.map((request) => request.range)).toEqual([
        undefined,
        undefined,
        'bytes=100000-',
      ]);
      expect(readFileSync(join(out, 'people.csv')).equals(content)).toBe(true);
      expect(readdirSync(out).sort()).toEqual(['datapackage.json', 'people.csv']);
    });
  }

  it('exits 130 on Ctrl-C with nothing under a final name, and the same command resumes', async () => {
    misbehave = 'stall';
    requests.length = 0;
    const out = join(mkdtempSync(join(tmpdir(), 'get-')), 'people');
    const interrupt = new AbortController();
    // Ctrl-C once the part holds all the hub sent before it stalled (written as it arrives,
    // in pieces of the connection's size), the point the same command goes on from.
    const watching = setInterval(() => {
      if (statSync(join(out, 'people.csv.part'), { throwIfNoEntry: false })?.size === 100_000)
        interrupt.abort();
    }, 10);
    const first = await data(
      ['get', `${base}/ada/people`, '--out', out],
      {},
      { through: 'sockets', signal: interrupt.signal },
    );
    clearInterval(watching);
    expect(first.code).toBe(130);
    expect(readdirSync(out)).toEqual(['people.csv.part']);
    const again = await data(
      ['get', `${base}/ada/people`, '--out', out],
      {},
      { through: 'sockets' },
    );
    expect(again.err).not.toContain('error');
    expect(again.code).toBe(0);
    expect(requests.at(-1)?.range).toBe('bytes=100000-');
    expect(readFileSync(join(out, 'people.csv')).equals(content)).toBe(true);
    expect(readdirSync(out).sort()).toEqual(['datapackage.json', 'people.csv']);
  });
});

describe('get of a file whose hash is not declared', () => {
  it('starts again rather than going on from a part another version may have left', async () => {
    const content = Buffer.from('id,name\n1,Ada\n2,Grace\n');
    const ranges: (string | undefined)[] = [];
    const hub = createServer((request, response) => {
      ranges.push(request.headers.range);
      if (request.url === '/ada/notes/datapackage.json')
        response.end(JSON.stringify({ resources: [{ name: 'notes', path: 'notes.csv' }] }));
      else if (/^\/ada\/notes\/(r\/)?notes\.csv$/.test(request.url ?? '')) {
        const from = Number(/bytes=(\d+)-/.exec(request.headers.range ?? '')?.[1] ?? 0);
        response.writeHead(from ? 206 : 200, {
          ...(from
            ? {
                'Content-Range': `bytes ${String(from)}-${String(content.length - 1)}/${String(content.length)}`,
              }
            : {}),
          'Content-Length': String(content.length - from),
        });
        response.end(content.subarray(from));
      } else response.writeHead(404).end();
    });
    await new Promise<void>((resolve) => hub.listen(0, '127.0.0.1', resolve));
    try {
      const base = `http://127.0.0.1:${String((hub.address() as AddressInfo).port)}`;
      const out = mkdtempSync(join(tmpdir(), 'get-'));
      // What a get of the file's earlier version, broken off, left behind.
      writeFileSync(join(out, 'notes.csv.part'), 'id,name\n1,Old\n');
      const { code, err } = await data(['get', `${base}/ada/notes/r/notes.csv`, '--out', out], {});
      expect(err).not.toContain('error');
      expect(code).toBe(0);
      expect(ranges.filter(Boolean)).toEqual([]);
      expect(readFileSync(join(out, 'notes.csv')).equals(content)).toBe(true);
    } finally {
      hub.closeAllConnections();
      hub.close();
    }
  });
});

/** Replays what a terminal would show: text, carriage returns, cursor moves and line clears. */
function screen(output: string): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let column = 0;
  // eslint-disable-next-line no-control-regex -- escape sequences are what this reads
  const pattern = /\x1b\[(\?\d+[lh]|(\d*)([GKA]))|([\r\n])|([^\x1b\r\n]+)/g;
  for (const [, control, count, command, newline, text] of output.matchAll(pattern)) {
    const line = (lines[row] ??= []);
    if (text) {
      for (const char of text) line[column++] = char;
    } else if (newline === '\r') column = 0;
    else if (newline === '\n') [row, column] = [row + 1, 0];
    else if (command === 'G') column = Number(count || 1) - 1;
    else if (command === 'A') row -= Number(count || 1);
    else if (command === 'K' && count === '2') lines[row] = [];
    else if (command === 'K' && (count === '' || count === '0')) line.length = column;
    else if (control === undefined) throw new Error('unknown escape sequence');
  }
  return lines.map((line) => line.join('')).filter((line) => line.trim() !== '');
}

describe('on a terminal', () => {
  it('shows overall and per-file upload progress, and log lines the spinner does not tear', async () => {
    server.use(
      ...publishingHub(),
      http.post(`${API}/upload`, async ({ request }) => {
        await request.arrayBuffer();
        await delay(250);
        return new HttpResponse(null, { status: 204 });
      }),
    );
    const { code, out, err } = await data(['publish', CITIES], {}, { tty: true });
    expect(code).toBe(0);
    // The total is known from the start (no "100% of 0 B" before the files are hashed).
    const total = ['datapackage.json', 'data/countries.csv', 'data/cities.csv']
      .map((path) => statSync(join(CITIES, path)).size)
      .reduce((sum, size) => sum + size, 0);
    const lines = [
      ...stripVTControlCharacters(err).matchAll(/uploading (\d+)% · [\d.]+ k?B of ([\d.]+ k?B)/g),
    ];
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((line) => line[2] === humanBytes(total))).toBe(true);
    expect(err).toMatch(/uploading \d+% · [\d.]+ k?B of [\d.]+ k?B · [\w.]+\.(csv|json) \d+%/);
    const shown = screen(err);
    expect(shown.slice(0, 3).sort()).toEqual([
      'uploaded data/cities.csv',
      'uploaded data/countries.csv',
      'uploaded datapackage.json',
    ]);
    expect(shown.slice(3)).toEqual(['submitted revision 1', 'succeeded']);
    expect(stripVTControlCharacters(out)).toBe(
      '✔ published http://hub.test/ada/world-cities (revision 1)\n',
    );
  });

  it('shows download progress against the declared sizes', async () => {
    const content = Buffer.from('n\n' + '7\n'.repeat(99_999));
    server.use(
      http.get(`${API}/ada/big/datapackage.json`, () =>
        HttpResponse.json({
          resources: [{ name: 'numbers', path: 'numbers.csv', bytes: content.length }],
        }),
      ),
      http.get(`${API}/ada/big/numbers.csv`, () => {
        const half = content.length / 2;
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(content.subarray(0, half));
            await delay(250);
            controller.enqueue(content.subarray(half));
            controller.close();
          },
        });
        return new HttpResponse(body);
      }),
    );
    const folder = mkdtempSync(join(tmpdir(), 'get-'));
    const { code, err } = await data(['get', 'ada/big', '--out', folder], {}, { tty: true });
    expect(code).toBe(0);
    expect(err).toContain('downloading 50% · 100 kB of 200 kB');
    expect(err).toContain('numbers.csv 50%');
    expect(screen(err)).toEqual(['saved numbers.csv (200 kB)']);
  });

  it('shows a download total from the answer when the descriptor declares none', async () => {
    const content = Buffer.from('n\n' + '7\n'.repeat(99_999));
    server.use(
      http.get(`${API}/ada/sizeless/datapackage.json`, () =>
        HttpResponse.json({ resources: [{ name: 'numbers', path: 'numbers.csv' }] }),
      ),
      http.get(`${API}/ada/sizeless/numbers.csv`, () => {
        const half = content.length / 2;
        const body = new ReadableStream<Uint8Array>({
          async start(controller) {
            controller.enqueue(content.subarray(0, half));
            await delay(250);
            controller.enqueue(content.subarray(half));
            controller.close();
          },
        });
        return new HttpResponse(body, { headers: { 'Content-Length': String(content.length) } });
      }),
    );
    const folder = mkdtempSync(join(tmpdir(), 'get-'));
    const { code, err } = await data(['get', 'ada/sizeless', '--out', folder], {}, { tty: true });
    expect(code).toBe(0);
    expect(err).toContain('downloading 50% · 100 kB of 200 kB');
  });
});

/** Every number in a JSON document, with where it is. */
function numbersIn(value: unknown, at = '$'): [string, number][] {
  if (typeof value === 'number') return [[at, value]];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => numbersIn(inner, `${at}.${key}`));
}

describe('numbers in JSON output', () => {
  it('publish --json gives its durations in seconds to the millisecond, never 17 digits', async () => {
    server.use(
      ...publishingHub(),
      http.post(`${API}/upload`, () => new HttpResponse(null, { status: 204 })),
    );
    const { code, out } = await data(['--json', 'publish', CITIES]);
    expect(code).toBe(0);
    const result = JSON.parse(out) as { seconds: { upload: number } };
    expect(result.seconds.upload).toBeGreaterThanOrEqual(0);
    for (const [at, number] of numbersIn(result))
      expect(`${at} = ${String(number)}`).toMatch(/ = -?\d+(\.\d{1,3})?$/);
  });
});
