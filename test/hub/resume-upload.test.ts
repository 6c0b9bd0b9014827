import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Hub } from '../../packages/hub/src/context.js';
import { collectGarbage } from '../../packages/hub/src/services/gc.js';
import { FolderStorage } from '../../packages/hub/src/engines/storage/folder.js';
import { startGatedProxy, type GatedProxy } from '../helpers/gated-proxy.js';
import {
  authorizeUploads,
  browserLogin,
  md5Base64,
  runData,
  serviceToken,
  storedObjects,
  withHub,
  type AuthorizeReply,
} from './helpers.js';

const BIN = join(import.meta.dirname, '../../bin/data');

/** A valid table of about `bytes` bytes, its values random so that no hub holds it yet. */
function table(bytes: number): Buffer {
  const lines = ['id,code,value'];
  let size = lines[0]?.length ?? 0;
  for (let id = 1; size < bytes; id++) {
    const line = `${String(id)},${randomBytes(12).toString('hex')},${String(id * 3)}`;
    lines.push(line);
    size += line.length + 1;
  }
  return Buffer.from(`${lines.join('\n')}\n`);
}

/** The bytes the hub's store holds of uploads that broke off, whichever the engine. */
async function heldOfBrokenUploads(hub: Hub): Promise<number> {
  let held = 0;
  if (hub.storage.multipart) {
    for await (const { size } of hub.storage.multipart.list('uploads/')) held += size;
    return held;
  }
  for await (const { size } of hub.storage.list('uploads/')) held += size;
  return held;
}

/** `data publish` of a folder, as a process of its own that the test may interrupt. */
function startPublish(dir: string, env: Record<string, string>) {
  const child = spawn(process.execPath, [BIN, 'publish', dir], {
    env: {
      ...(process.env as Record<string, string>),
      DATA_CONFIG_DIR: join(dir, '..', '.config'),
      DATA_KEYCHAIN: '0',
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  child.stdout.resume();
  const done = new Promise<{ code: number | null; err: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, err })),
  );
  return { child, done };
}

async function waitFor(what: string, ready: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('an upload stopped half-way', () => {
  let work: string;
  let proxy: GatedProxy;
  beforeEach(async () => {
    work = mkdtempSync(join(tmpdir(), 'data-resume-'));
    proxy = await startGatedProxy();
  });
  afterEach(async () => {
    await proxy.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('goes on from what the store holds: data publish again sends less than 60% of the file', async () => {
    const bytes = table(20_000_000);
    const dir = join(work, 'pkg');
    mkdirSync(join(dir, 'data'), { recursive: true });
    writeFileSync(join(dir, 'data', 'big.csv'), bytes);
    writeFileSync(
      join(dir, 'datapackage.json'),
      JSON.stringify({ name: 'resumed', resources: [{ name: 'big', path: 'data/big.csv' }] }),
    );
    await withHub({}, async ({ url, hub }) => {
      const env = {
        DATA_API: url,
        DATA_TOKEN: await browserLogin(url, 'ada'),
        HTTP_PROXY: proxy.url,
        NO_PROXY: '',
      };
      // The proxy holds every byte past 55% of the file: the upload stops there and waits.
      proxy.limit(Math.round(bytes.length * 0.55));
      const first = startPublish(dir, env);
      try {
        await waitFor(
          'the hub holding half of the file',
          async () => (await heldOfBrokenUploads(hub)) >= bytes.length / 2,
        );
      } finally {
        first.child.kill('SIGINT');
      }
      const stopped = await first.done;
      expect(stopped.err).not.toMatch(/bug in data|at .*\.js:\d+/);
      expect(stopped.code).toBe(130);
      expect(await heldOfBrokenUploads(hub)).toBeGreaterThanOrEqual(bytes.length / 2);

      proxy.limit(Infinity);
      proxy.reset();
      const again = await runData(['publish', dir], { env, cwd: work });
      expect(again.err).not.toMatch(/^error/m);
      expect(again.code).toBe(0);
      expect(proxy.forwarded(), proxy.requests().join('\n')).toBeLessThan(bytes.length * 0.6);
      expect(await heldOfBrokenUploads(hub)).toBe(0);

      const published = await fetch(`${url}/ada/resumed/r/big.csv`);
      expect(published.status).toBe(200);
      expect(Buffer.from(await published.arrayBuffer()).equals(bytes)).toBe(true);
      expect(readFileSync(join(dir, 'data', 'big.csv')).equals(bytes)).toBe(true);
    });
  }, 120_000);
});

interface Plan {
  length: number;
  held: number;
  parts: { start: number; end: number; url: string }[];
}

async function planOf(url: string): Promise<Plan> {
  const answer = await fetch(url);
  expect(answer.status).toBe(200);
  return (await answer.json()) as Plan;
}

async function sendParts(plan: Plan, bytes: Buffer): Promise<void> {
  for (const part of plan.parts) {
    const put = await fetch(part.url, {
      method: 'PUT',
      body: bytes.subarray(part.start, part.end),
    });
    expect(put.ok).toBe(true);
  }
}

describe('an upload in parts, tried as an attacker would', () => {
  it('counts only a whole file whose MD5 is the one signed, and only at its own session', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await serviceToken(url, await browserLogin(url, 'ada'), 'rawstore');
      const bytes = randomBytes(9 * 1024 * 1024);
      const key = `${Buffer.from(md5Base64(bytes), 'base64').toString('hex')}.csv`;
      const entry = (
        (await (
          await authorizeUploads(url, ada, new Map([['big.csv', bytes]]), 'published', [
            'PARTS',
            'PUT',
            'POST',
          ])
        ).json()) as AuthorizeReply
      ).filedata['big.csv'];
      expect(entry?.upload_method).toBe('PARTS');
      const session = entry?.upload_url ?? '';

      // A session changed by its holder (another owner, a longer file) is refused.
      const address = new URL(session);
      const signed = JSON.parse(
        Buffer.from(address.searchParams.get('session') ?? '', 'base64url').toString(),
      ) as Record<string, unknown>;
      address.searchParams.set(
        'session',
        Buffer.from(JSON.stringify({ ...signed, ownerid: 'someone-else' })).toString('base64url'),
      );
      expect((await fetch(address)).status).toBe(403);

      // Bytes of the right length that are not the file: checked whole, dropped, never held.
      const plan = await planOf(session);
      expect(plan).toMatchObject({ length: bytes.length, held: 0 });
      if (!hub.storage.multipart)
        expect((await fetch(`${session}&offset=1`, { method: 'PUT', body: 'x' })).status).toBe(409);
      await sendParts(plan, randomBytes(bytes.length));
      expect((await planOf(session)).parts).toEqual([]);
      const wrong = await fetch(session, { method: 'POST', body: '{}' });
      expect(wrong.status).toBe(400);
      expect(await hub.store.holds(ada.userid, key)).toBe(false);
      expect(await storedObjects(hub)).toEqual([]);

      // Completed before it is whole: refused, what is held is kept.
      const again = await planOf(session);
      expect(again.held).toBe(0);
      // The first 5 MiB: the first part on S3, the first bytes of the one part on a folder.
      const first = again.parts[0] ?? { start: 0, end: 0, url: '' };
      const head = { ...first, end: Math.min(first.end, first.start + 5 * 1024 * 1024) };
      await sendParts({ ...again, parts: [head] }, bytes);
      const early = await fetch(session, { method: 'POST', body: '{}' });
      expect(early.status).toBe(409);
      const rest = await planOf(session);
      expect(rest.held).toBe(5 * 1024 * 1024);
      await sendParts(rest, bytes);
      const done = await fetch(session, { method: 'POST', body: '{}' });
      expect(done.status).toBe(200);
      expect(await done.json()).toEqual({
        object_url: `${url}/rawstore/objects/${key}`,
        md5: md5Base64(bytes),
      });
      expect(await hub.store.holds(ada.userid, key)).toBe(true);
      expect(await storedObjects(hub)).toEqual([key]);
      expect(await heldOfBrokenUploads(hub)).toBe(0);
      // Asked again, as after an answer that was lost: the same answer.
      expect((await fetch(session, { method: 'POST', body: '{}' })).status).toBe(200);
      // Planned again, as by the owner's second publication of the file: nothing to send.
      expect(await planOf(session)).toEqual({
        length: bytes.length,
        held: bytes.length,
        parts: [],
      });
    });
  });

  it('stores the very bytes it checked, though the owner completes another upload of the same file meanwhile', async () => {
    await withHub({}, async ({ url, hub }) => {
      const multipart = hub.storage.multipart;
      if (!multipart) return; // a folder's partial file is taken away before it is checked
      const ada = await serviceToken(url, await browserLogin(url, 'ada'), 'rawstore');
      const bytes = randomBytes(9 * 1024 * 1024);
      const key = `${Buffer.from(md5Base64(bytes), 'base64').toString('hex')}.csv`;
      const sessionOf = async (): Promise<string> =>
        (
          (await (
            await authorizeUploads(url, ada, new Map([['big.csv', bytes]]), 'published', ['PARTS'])
          ).json()) as AuthorizeReply
        ).filedata['big.csv']?.upload_url ?? '';
      const first = await sessionOf();
      const second = await sessionOf();
      await sendParts(await planOf(first), bytes);

      // While the hub reads the first upload to check it, the second session sends garbage
      // and its upload is completed, before the hub takes the first in.
      const read = hub.storage.read.bind(hub.storage);
      let raced = false;
      hub.storage.read = async (at, range) => {
        const checked = await buffer(await read(at, range));
        if (!raced && at.startsWith('uploads/')) {
          raced = true;
          await sendParts(await planOf(second), randomBytes(bytes.length));
          for await (const upload of multipart.list(`uploads/${ada.userid}/`))
            await multipart.complete(upload.key, upload.uploadId);
        }
        return Readable.from([checked]);
      };
      const done = await fetch(first, { method: 'POST', body: '{}' });
      hub.storage.read = read;
      expect(raced).toBe(true);
      expect(done.status).toBe(200);
      const stored = await buffer(await read(`objects/${key}`));
      expect(md5Base64(stored)).toBe(md5Base64(bytes));
    });
  });

  it('leaves an upload that broke off to garbage collection, which keeps it within its grace', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await serviceToken(url, await browserLogin(url, 'ada'), 'rawstore');
      const bytes = randomBytes(9 * 1024 * 1024);
      const entry = (
        (await (
          await authorizeUploads(url, ada, new Map([['big.csv', bytes]]), 'private', ['PARTS'])
        ).json()) as AuthorizeReply
      ).filedata['big.csv'];
      const plan = await planOf(entry?.upload_url ?? '');
      const first = plan.parts[0] ?? { start: 0, end: 0, url: '' };
      await sendParts({ ...plan, parts: [{ ...first, end: 5 * 1024 * 1024 }] }, bytes);
      expect(await heldOfBrokenUploads(hub)).toBe(5 * 1024 * 1024);
      const within = await collectGarbage(hub, { graceMinutes: 120, dryRun: false });
      expect(within.staged.count).toBe(0);
      expect(await heldOfBrokenUploads(hub)).toBe(5 * 1024 * 1024);
      // A store may round the time of a part up to its second: past it, the part is past.
      await waitFor(
        'the parts to be older than now',
        async () =>
          (await collectGarbage(hub, { graceMinutes: 0, dryRun: true })).staged.count === 1,
        10_000,
      );
      const past = await collectGarbage(hub, { graceMinutes: 0, dryRun: false });
      expect(past.staged).toEqual({ count: 1, bytes: 5 * 1024 * 1024 });
      expect(await heldOfBrokenUploads(hub)).toBe(0);
      // The session asked again begins anew.
      expect((await planOf(entry?.upload_url ?? '')).held).toBe(0);
    });
  });

  it('leaves to garbage collection no failure for an upload completed between its listing and its abort', async () => {
    await withHub({}, async ({ hub }) => {
      const multipart = hub.storage.multipart;
      if (!multipart) return; // a folder's partial files are removed as files
      const upload = await multipart.open('uploads/ada/resumable/x.csv', 'text/csv');
      const bytes = Buffer.from('id\n1\n');
      const put = await fetch(
        await multipart.presignPart(upload?.key ?? '', upload?.uploadId ?? '', 1, bytes.length, 60),
        { method: 'PUT', body: bytes },
      );
      expect(put.ok).toBe(true);
      const list = multipart.list.bind(multipart);
      multipart.list = async function* (prefix) {
        for await (const listed of list(prefix)) {
          // Completed by its owner once listed, and listed as past the grace.
          await multipart.complete(listed.key, listed.uploadId);
          yield { ...listed, modified: new Date(0) };
        }
      };
      try {
        const report = await collectGarbage(hub, { graceMinutes: 60, dryRun: false });
        expect(report.staged.count).toBe(0);
      } finally {
        multipart.list = list;
      }
    });
  });

  it('trusts the digest taken on the way only of a write that went into the partial file alone', async () => {
    const store = mkdtempSync(join(tmpdir(), 'data-partial-'));
    try {
      const folder = new FolderStorage(store);
      const key = 'uploads/ada/resumable/x';
      async function* body(
        first: string,
        release?: Promise<void>,
        then = '',
      ): AsyncIterable<Buffer> {
        yield Buffer.from(first);
        await release;
        if (then) yield Buffer.from(then);
      }
      expect(await folder.partial.write(key, 0, body('aaaa', undefined, 'bbbb'), 8)).toMatchObject({
        held: 8,
        alone: true,
      });
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const first = folder.partial.write(key, 0, body('cccc', gate, 'dddd'), 8);
      // Another write into the same file while the first goes on: a checker is refused, and
      // neither write is alone.
      await expect(folder.partial.take(key)).rejects.toMatchObject({ status: 409 });
      const second = await folder.partial.write(key, 4, body('eeee'), 8);
      release();
      expect(second.alone).toBe(false);
      expect((await first).alone).toBe(false);
      // Taken, it carries no write's stamp: no digest taken on the way stands for it.
      const taken = await folder.partial.take(key);
      expect(taken?.stamp).toBe(0);
      expect(readFileSync(taken?.path ?? '', 'utf8')).toBe('ccccdddd');
    } finally {
      rmSync(store, { recursive: true, force: true });
    }
  });

  it('keeps the stamps of the newest partial files made whole by a write alone, and no others', async () => {
    const store = mkdtempSync(join(tmpdir(), 'data-partial-'));
    try {
      const folder = new FolderStorage(store);
      const body = (text: string): AsyncIterable<Buffer> => Readable.from([Buffer.from(text)]);
      const whole = await folder.partial.write('uploads/ada/resumable/whole', 0, body('ab'), 2);
      const broken = await folder.partial.write('uploads/ada/resumable/half', 0, body('a'), 2);
      expect(broken.alone).toBe(true);
      expect((await folder.partial.take('uploads/ada/resumable/half'))?.stamp).toBe(0);
      // Past the newest 1,024, the oldest stamp goes: that file would be read again.
      let newest = whole;
      for (let n = 0; n < 1024; n++)
        newest = await folder.partial.write(`uploads/ada/resumable/${String(n)}`, 0, body('ab'), 2);
      expect((await folder.partial.take('uploads/ada/resumable/whole'))?.stamp).toBe(0);
      expect((await folder.partial.take('uploads/ada/resumable/1023'))?.stamp).toBe(newest.stamp);
    } finally {
      rmSync(store, { recursive: true, force: true });
    }
  });
});
