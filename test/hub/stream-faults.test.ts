import { get, request as httpRequest } from 'node:http';
import { mkdirSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import type { RunningHub } from '../../packages/hub/src/server.js';
import { openStorage } from '../../packages/hub/src/engines/storage/open.js';
import type { Storage } from '../../packages/hub/src/engines/storage/types.js';
import { zipEntries } from '../helpers/unzip.js';
import {
  authorizeUploads,
  browserLogin,
  EXAMPLES,
  publish,
  serviceToken,
  type AuthorizeReply,
  tempDir,
  testStorage,
  waitForState,
  withHub,
} from './helpers.js';

/**
 * Faults injected into each kind of stream a read of the hub uses (a stored file, an entry
 * of a dataset's zip, a copy made when asked for, a client that goes away): each fails its
 * own request, never the hub, which still answers /healthz. A hub in this process that
 * ended on an unheard 'error' fails the run as an uncaught exception.
 */
const work = tempDir();
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A semicolon table of `rows` rows (about 30 bytes each), so that its copies must be made. */
function pricesPackage(rows: number): string {
  const dir = join(work, `prices-${String(rows)}`);
  mkdirSync(dir, { recursive: true });
  const lines = ['id;name;price'];
  for (let i = 0; i < rows; i++)
    lines.push(`${String(i)};item number ${String(i)};${String(i % 97)}.5`);
  writeFileSync(join(dir, 'prices.csv'), `${lines.join('\n')}\n`);
  const fields = [
    { name: 'id', type: 'integer' },
    { name: 'name', type: 'string' },
    { name: 'price', type: 'number' },
  ];
  const resource = {
    name: 'prices',
    path: 'prices.csv',
    dialect: { delimiter: ';' },
    schema: { fields },
  };
  writeFileSync(
    join(dir, 'datapackage.json'),
    JSON.stringify({ name: 'prices', resources: [resource] }),
  );
  return dir;
}

/** 8,000 rows: about 200 KB, past what is read whole (64 KB), short of a redirect (1 MB). */
const LARGE = pricesPackage(8000);

type Hub = RunningHub & { url: string };

async function published(hub: Hub, dir: string): Promise<void> {
  const jwt = await browserLogin(hub.url);
  const state = await waitForState(hub.url, (await publish(hub.url, jwt, dir)).flowId);
  expect(state.state).toBe('SUCCEEDED');
}

async function stillUp(url: string): Promise<void> {
  expect((await fetch(`${url}/healthz`)).status).toBe(200);
}

/** Runs `run` on a hub whose log lines it collects. */
function withLoggedHub(run: (hub: Hub, log: string[]) => Promise<void>): Promise<void> {
  const log: string[] = [];
  return withHub({ log: (line) => log.push(line) }, (hub) => run(hub, log));
}

const FAULT = 'injected fault: the store failed mid-read';

/**
 * The engine's own stream of a read, giving half of its first piece and then destroyed with
 * an error: a disk or a store's connection failing mid-read, on either engine.
 */
function failingMidway(stream: Readable): Readable {
  const push = stream.push.bind(stream);
  let pieces = 0;
  stream.push = (chunk: unknown, encoding?: BufferEncoding): boolean => {
    if (pieces++ === 0 && Buffer.isBuffer(chunk))
      return push(chunk.subarray(0, chunk.length >> 1), encoding);
    stream.destroy(new Error(FAULT));
    return false;
  };
  return stream;
}

/**
 * One piece, then nothing, and an error of its own once torn down before its end, as the S3
 * engine's stream of a read (the store's answer, whose connection is then closed: 'aborted').
 */
function stallingFailingWhenTornDown(): Readable {
  const stream = new Readable({
    read: () => undefined,
    destroy: (_error, callback) => callback(new Error('aborted: torn down')),
  });
  stream.push('id;name;price\n');
  return stream;
}

/** One piece, then nothing ever again. */
async function* stalling(): AsyncGenerator<Buffer> {
  yield Buffer.from('id;name;price\n');
  await new Promise(() => undefined);
}

type Fault = 'at-open' | 'mid-stream' | 'stalled' | 'torn-down';

/**
 * Makes reads of the keys `which` picks fail as `fault` says, until `heal` is called; `stalled`
 * reads give one piece and then nothing, as a store that stops answering; `torn-down` reads
 * stall too, and fail once destroyed.
 */
function injectReadFault(storage: Storage, which: (key: string) => boolean, fault: Fault) {
  const read = storage.read.bind(storage);
  const opened: Readable[] = [];
  let healed = false;
  let onOpen: (stream: Readable) => void = () => undefined;
  const firstOpened = new Promise<Readable>((resolve) => (onOpen = resolve));
  storage.read = async (key, range) => {
    if (healed || !which(key)) return read(key, range);
    if (fault === 'at-open') throw new Error(FAULT);
    const stream =
      fault === 'mid-stream'
        ? failingMidway(await read(key, range))
        : fault === 'torn-down'
          ? stallingFailingWhenTornDown()
          : Readable.from(stalling(), { objectMode: false });
    opened.push(stream);
    onOpen(stream);
    return stream;
  };
  return {
    opened,
    firstOpened,
    heal: () => {
      healed = true;
    },
  };
}

const isObject = (key: string): boolean => key.startsWith('objects/');

/** The body of a response read to its end; throws if the hub cut it short. */
/**
 * A zip that is never served whole: a 500 before its first bytes, or a 200 cut short after
 * them. The status line goes out with the first bytes, so a failure just after them may also
 * close the connection before the client has read any: fetch then fails, which is as much a
 * refusal of a broken zip as the others.
 */
async function expectNeverWhole(url: string): Promise<void> {
  const response = await fetch(url).catch((error: unknown) => error);
  if (!(response instanceof Response)) {
    expect(response).toBeInstanceOf(TypeError);
    return;
  }
  if (response.status === 200) await expect(body(response)).rejects.toThrow();
  else expect(response.status).toBe(500);
}

async function body(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

/** Reads the first bytes of a response, then closes the connection; the response's status. */
function leftAfterFirstBytes(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = get(url, (response) => {
      response.once('data', () => {
        request.destroy();
        resolve(response.statusCode ?? 0);
      });
    });
    request.on('error', reject);
  });
}

describe('a stream that fails ends its own request, never the hub', () => {
  it('answers the zip of a package with an inline-data table (examples/sales-v2)', async () => {
    await withLoggedHub(async (hub) => {
      await published(hub, join(EXAMPLES, 'sales-v2'));
      const response = await fetch(`${hub.url}/ada/shop-sales/r/shop-sales_zip.zip`);
      expect(response.status).toBe(200);
      const files = await zipEntries(await body(response));
      const descriptor = JSON.parse(files.get('datapackage.json')?.toString() ?? '{}') as {
        resources: { name: string; path?: string; data?: unknown }[];
      };
      // The inline table is in the descriptor, with its rows, and so are its copies, made
      // from those rows; every path named is in the zip.
      expect(descriptor.resources.map((resource) => resource.name)).toEqual([
        'sales',
        'stores',
        'sales_csv',
        'sales_json',
        'sales_csv_preview',
        'stores_csv',
        'stores_json',
        'stores_csv_preview',
      ]);
      expect(
        descriptor.resources.find((resource) => resource.name === 'stores')?.data,
      ).toHaveLength(2);
      for (const { path } of descriptor.resources)
        if (path !== undefined) expect(files.has(path), path).toBe(true);
      expect(files.get('data/sales.csv')?.toString()).toContain('north');
      expect(files.get('_derived/stores_csv.csv')?.toString()).toBe(
        'store,manager,since\nnorth,Grace,2019-05\nsouth,Alan,2021-11\n',
      );
      await stillUp(hub.url);
    });
  });

  it('answers a 500 when a stored file cannot be opened, small or large', async () => {
    await withLoggedHub(async (hub, log) => {
      await published(hub, LARGE);
      injectReadFault(hub.hub.storage, () => true, 'at-open');
      for (const file of ['datapackage.json', 'r/prices.csv']) {
        const response = await fetch(`${hub.url}/ada/prices/${file}`);
        expect(response.status, file).toBe(500);
        expect(await response.json()).toEqual({ error: 'internal error' });
      }
      expect(log.filter((line) => line.includes(FAULT))).toHaveLength(2);
      await stillUp(hub.url);
    });
  });

  it('cuts a file short, and logs why, when its read fails once bytes are sent', async () => {
    await withLoggedHub(async (hub, log) => {
      await published(hub, LARGE);
      const fault = injectReadFault(hub.hub.storage, isObject, 'mid-stream');
      const response = await fetch(`${hub.url}/ada/prices/r/prices.csv`);
      expect(response.status).toBe(200);
      await expect(body(response)).rejects.toThrow();
      expect(fault.opened).toHaveLength(1);
      expect(log.some((line) => line.includes('cut short') && line.includes(FAULT))).toBe(true);
      await stillUp(hub.url);
    });
  });

  it('fails the zip when an original fails mid-read, and makes it whole once the store heals', async () => {
    await withLoggedHub(async (hub, log) => {
      await published(hub, LARGE);
      const fault = injectReadFault(hub.hub.storage, isObject, 'mid-stream');
      const zip = `${hub.url}/ada/prices/r/prices_zip.zip`;
      await expectNeverWhole(zip);
      expect(log.some((line) => line.includes(FAULT))).toBe(true);
      await stillUp(hub.url);
      fault.heal();
      const again = await fetch(zip);
      expect(again.status).toBe(200);
      const files = await zipEntries(await body(again));
      expect(files.get('prices.csv')?.length).toBeGreaterThan(64 * 1024);
      expect(files.has('_derived/prices_csv.csv')).toBe(true);
    });
  });

  it('fails the zip and the copy when a copy made on demand fails', async () => {
    await withLoggedHub(async (hub) => {
      await published(hub, join(EXAMPLES, 'sales-v2'));
      // The copy reads the table's file from a link (folder) or a signed URL (S3).
      const storage = hub.hub.storage;
      storage.materialize = () => Promise.reject(new Error(FAULT));
      if (storage.direct) storage.direct.presignGet = () => Promise.reject(new Error(FAULT));
      const copy = await fetch(`${hub.url}/ada/shop-sales/r/sales_csv.csv`);
      expect(copy.status).toBe(500);
      expect(await copy.text()).toMatch(/the CSV copy of sales could not be made/);
      await expectNeverWhole(`${hub.url}/ada/shop-sales/r/shop-sales_zip.zip`);
      await stillUp(hub.url);
    });
  });

  it('stays up, and logs nothing of it, when clients go away mid-download', async () => {
    await withLoggedHub(async (hub, log) => {
      await published(hub, LARGE);
      for (const file of ['prices.csv', 'prices_zip.zip', 'prices_json.json']) {
        expect(await leftAfterFirstBytes(`${hub.url}/ada/prices/r/${file}`), file).toBe(200);
        await stillUp(hub.url);
      }
      await hub.hub.copies.idle();
      expect(
        log.filter((line) => line.includes('cut short') || line.includes('internal error')),
      ).toEqual([]);
    });
  });

  it('logs nothing when the file of a client gone away fails as it is torn down, as S3’s does', async () => {
    await withLoggedHub(async (hub, log) => {
      await published(hub, LARGE);
      const fault = injectReadFault(hub.hub.storage, isObject, 'torn-down');
      expect(await leftAfterFirstBytes(`${hub.url}/ada/prices/r/prices.csv`)).toBe(200);
      const read = await fault.firstOpened;
      // Its error is the hub's to hear: once() would take it for the wait's own failure.
      if (!read.closed) await new Promise((resolve) => read.once('close', resolve));
      // The request's failure reaches the hub's handler in callbacks queued by that close.
      await new Promise(setImmediate);
      expect(log.filter((line) => line.includes('cut short'))).toEqual([]);
      await stillUp(hub.url);
    });
  });

  it('closes a stored file being zipped when the making of the zip stops', async () => {
    let stalled: Readable | undefined;
    await withLoggedHub(async (hub) => {
      await published(hub, LARGE);
      const fault = injectReadFault(hub.hub.storage, isObject, 'stalled');
      expect(await leftAfterFirstBytes(`${hub.url}/ada/prices/r/prices_zip.zip`)).toBe(200);
      stalled = await fault.firstOpened;
      await stillUp(hub.url);
      // The hub stops (and with it the making) as this callback returns.
    });
    expect(stalled?.destroyed).toBe(true);
  });

  it('fails the store’s write of a file that cannot be read, on this run’s engine', async () => {
    // A folder opens for reading and fails at its first read (EISDIR), as a disk failing
    // under a file being stored would: the S3 engine hands the stream to the AWS SDK.
    const storage = await openStorage(testStorage() ?? join(work, 'store'));
    try {
      const unreadable = join(work, 'a-folder');
      mkdirSync(unreadable, { recursive: true });
      const meta = { md5: '1B2M2Y8AsgTpgAmY7PhCfg==', length: 10, type: 'text/csv' };
      await expect(storage.putFile('objects/unreadable.csv', unreadable, meta)).rejects.toThrow();
      expect(await storage.stat('objects/unreadable.csv')).toBeUndefined();
    } finally {
      storage.close();
    }
  });

  it('closes the file of an upload whose client goes away mid-body', async () => {
    await withLoggedHub(async (hub) => {
      const jwt = await browserLogin(hub.url);
      const bytes = Buffer.alloc(4 * 1024 * 1024, 'a');
      const rawstore = await serviceToken(hub.url, jwt, 'rawstore');
      const reply = (await (
        await authorizeUploads(hub.url, rawstore, new Map([['big.csv', bytes]]))
      ).json()) as AuthorizeReply;
      const entry = reply.filedata['big.csv'];
      // A store that takes uploads itself (S3) is not the hub's to read from.
      if (!entry?.upload_url.startsWith(hub.url)) return;
      const boundary = 'fault-boundary';
      const head = Object.entries(entry.upload_query)
        .map(
          ([name, value]) =>
            `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
        )
        .join('');
      const client = httpRequest(entry.upload_url, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      client.on('error', () => undefined);
      client.write(
        `${head}--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="big.csv"\r\n\r\n`,
      );
      client.write(bytes.subarray(0, bytes.length / 2));
      const partsOpen = (): number =>
        openFilesUnder(hub.hub.tmpDir).filter((file) => file.endsWith('.part')).length;
      await until(() => partsOpen() > 0, 'the upload’s file is open');
      client.destroy();
      await until(() => partsOpen() === 0, 'the upload’s file is closed');
      await stillUp(hub.url);
    });
  });
});

/** The files under `folder` this process holds open. */
function openFilesUnder(folder: string): string[] {
  const files: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(folder)) files.push(target);
    } catch {
      // Closed since the listing.
    }
  }
  return files;
}

/** Resolves once `condition` holds; the deadline only turns one that never does into a failure. */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = performance.now() + 10_000;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
