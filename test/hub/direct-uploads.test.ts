import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Hub } from '../../packages/hub/src/context.js';
import type { Storage } from '../../packages/hub/src/engines/storage/types.js';
import { claimStaged } from '../../packages/hub/src/services/objects.js';
import {
  authorizeUploads,
  browserLogin,
  EXAMPLES,
  md5Base64,
  runData,
  serviceToken,
  storedObjects,
  uploadForm,
  waitForState,
  withHub,
  type AuthorizeReply,
} from './helpers.js';

/** A package with a table past the size the hub serves itself from a store that can. */
function largePackage(dir: string): Buffer {
  cpSync(join(EXAMPLES, 'cities'), dir, { recursive: true });
  const rows = ['id,name,value'];
  for (let id = 1; rows.length <= 60_000; id++)
    rows.push(`${String(id)},row ${String(id)},${String(id * 7)}`);
  const bytes = Buffer.from(`${rows.join('\n')}\n`);
  writeFileSync(join(dir, 'data/large.csv'), bytes);
  const descriptor = JSON.parse(readFileSync(join(dir, 'datapackage.json'), 'utf8')) as {
    resources: unknown[];
  };
  descriptor.resources.push({ name: 'large', path: 'data/large.csv', format: 'csv' });
  writeFileSync(join(dir, 'datapackage.json'), JSON.stringify(descriptor));
  return bytes;
}

async function staged(hub: Hub): Promise<string[]> {
  const keys: string[] = [];
  for await (const { key } of hub.storage.list('uploads/')) keys.push(key);
  return keys;
}

describe('uploads straight to the store', () => {
  it('data publish sends the bytes where the store takes them, and data get reads them back byte-identical', async () => {
    const work = mkdtempSync(join(tmpdir(), 'data-direct-'));
    try {
      await withHub({}, async ({ url, hub }) => {
        const large = largePackage(join(work, 'pkg'));
        expect(large.length).toBeGreaterThan(1024 * 1024);
        const env = { DATA_API: url, DATA_TOKEN: await browserLogin(url, 'ada') };
        const published = await runData(['publish', 'pkg'], { env, cwd: work });
        expect(published.err).not.toMatch(/^error/m);
        expect(published.code).toBe(0);
        expect(await staged(hub)).toEqual([]);
        expect(await storedObjects(hub)).toContain(
          `${Buffer.from(md5Base64(large), 'base64').toString('hex')}.csv`,
        );
        const read = await fetch(`${url}/ada/world-cities/r/large.csv`, { redirect: 'manual' });
        if (hub.storage.direct) {
          // A large file is read from the store itself, at a short-lived signed address.
          expect(read.status).toBe(302);
          const location = read.headers.get('location') ?? '';
          expect(new URL(location).origin).not.toBe(new URL(url).origin);
          expect(location).toContain('X-Amz-Signature=');
        } else expect(read.status).toBe(200);
        await read.body?.cancel();
        const got = await runData(['get', 'ada/world-cities', '--out', 'copy'], { env, cwd: work });
        expect(got.code).toBe(0);
        expect(readFileSync(join(work, 'copy/data/large.csv')).equals(large)).toBe(true);
        expect(
          readFileSync(join(work, 'copy/data/cities.csv')).equals(
            readFileSync(join(EXAMPLES, 'cities/data/cities.csv')),
          ),
        ).toBe(true);
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('offers a presigned PUT only where the store takes one, bound to the length and MD5 asked for', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await serviceToken(url, await browserLogin(url, 'ada'), 'rawstore');
      const bytes = Buffer.from('id,name\n1,one\n');
      const reply = (await (
        await authorizeUploads(url, ada, new Map([['one.csv', bytes]]), 'published', [
          'PUT',
          'POST',
        ])
      ).json()) as AuthorizeReply;
      const entry = reply.filedata['one.csv'];
      const key = `${Buffer.from(md5Base64(bytes), 'base64').toString('hex')}.csv`;
      expect(entry?.object_url).toBe(`${url}/rawstore/objects/${key}`);
      if (!hub.storage.direct) {
        expect(entry?.upload_method).toBeUndefined();
        expect(entry?.upload_query.Policy).toBeTruthy();
        return;
      }
      expect(entry?.upload_method).toBe('PUT');
      const put = (body: Buffer, headers = entry?.upload_headers ?? {}) =>
        fetch(entry?.upload_url ?? '', {
          method: 'PUT',
          headers: Object.fromEntries(
            Object.entries(headers).filter(([name]) => name !== 'Content-Length'),
          ),
          body,
        });
      const other = Buffer.from('id,name\n1,two\n');
      expect((await put(other)).status).toBeGreaterThanOrEqual(400);
      expect(
        (await put(other, { ...entry?.upload_headers, 'Content-MD5': md5Base64(other) })).status,
      ).toBeGreaterThanOrEqual(400);
      expect((await put(Buffer.concat([bytes, bytes]))).status).toBeGreaterThanOrEqual(400);
      expect(await staged(hub)).toEqual([]);
      expect((await put(bytes)).status).toBe(200);
      // Asked again, the hub takes the upload in and says it exists.
      const again = (await (
        await authorizeUploads(url, ada, new Map([['one.csv', bytes]]), 'published', ['PUT'])
      ).json()) as AuthorizeReply;
      expect(again.filedata['one.csv']?.exists).toBe(true);
      expect(await staged(hub)).toEqual([]);
      expect(await storedObjects(hub)).toEqual([key]);
    });
  });

  it('never lets the MD5 of bytes someone else put in the store stand for an upload', async () => {
    await withHub({}, async ({ url }) => {
      const adaJwt = await browserLogin(url, 'ada');
      const ada = await serviceToken(url, adaJwt, 'rawstore');
      const secret = Buffer.from('id,secret\n1,launch codes\n');
      const files = new Map([['secret.csv', secret]]);
      const entry = (
        (await (
          await authorizeUploads(url, ada, files, 'private', ['PUT', 'POST'])
        ).json()) as AuthorizeReply
      ).filedata['secret.csv'];
      if (!entry) throw new Error('no entry');
      const sent = entry.upload_method
        ? await fetch(entry.upload_url, {
            method: 'PUT',
            headers: { 'Content-MD5': md5Base64(secret), 'Content-Type': 'text/csv' },
            body: secret,
          })
        : await fetch(entry.upload_url, {
            method: 'POST',
            body: uploadForm(entry.upload_query, secret),
          });
      expect(sent.ok).toBe(true);
      const malloryJwt = await browserLogin(url, 'mallory');
      const mallory = await serviceToken(url, malloryJwt, 'rawstore');
      const guess = (
        (await (
          await authorizeUploads(url, mallory, files, 'private', ['PUT', 'POST'])
        ).json()) as AuthorizeReply
      ).filedata['secret.csv'];
      expect(guess?.exists).toBe(false);
      const source = await serviceToken(url, malloryJwt, 'source');
      const submitted = (await (
        await fetch(`${url}/source/upload`, {
          method: 'POST',
          headers: { 'Auth-Token': source.token, 'content-type': 'application/json' },
          body: JSON.stringify({
            meta: { ownerid: mallory.userid, owner: 'mallory', dataset: 'stolen' },
            inputs: [
              {
                kind: 'datapackage',
                url: `${url}/rawstore/objects/x`,
                parameters: {
                  descriptor: { name: 'stolen', resources: [{ name: 's', path: 'secret.csv' }] },
                  'resource-mapping': { 'secret.csv': guess?.object_url },
                },
              },
            ],
          }),
        })
      ).json()) as { flow_id: string };
      const status = await waitForState(url, submitted.flow_id, malloryJwt);
      expect(status.state).toBe('FAILED');
      expect(status.error_log.join(' ')).toContain('no stored object of yours');
    });
  });

  it('takes an upload in once when two publications of its owner name it at the same time', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await serviceToken(url, await browserLogin(url, 'ada'), 'rawstore');
      const bytes = Buffer.from('id,name\n1,twice\n');
      const key = `${Buffer.from(md5Base64(bytes), 'base64').toString('hex')}.csv`;
      if (!hub.storage.direct) {
        // A folder takes no uploads itself: nothing is ever staged there.
        expect(await claimStaged(hub, ada.userid, key, false)).toBe(false);
        return;
      }
      const entry = (
        (await (
          await authorizeUploads(url, ada, new Map([['twice.csv', bytes]]), 'published', ['PUT'])
        ).json()) as AuthorizeReply
      ).filedata['twice.csv'];
      const headers = { ...entry?.upload_headers };
      delete headers['Content-Length'];
      expect(
        (await fetch(entry?.upload_url ?? '', { method: 'PUT', headers, body: bytes })).status,
      ).toBe(200);
      // The other claim finishes between this one's look at staging and its copy.
      const storage = hub.storage;
      const racing = {
        ...hub,
        storage: Object.assign(Object.create(storage) as typeof storage, {
          copy: async (from: string, to: string) => {
            await storage.copy(from, to);
            await storage.delete(from);
            await storage.copy(from, to);
          },
        }),
      };
      expect(await claimStaged(racing, ada.userid, key, false)).toBe(true);
      expect(await hub.store.holds(ada.userid, key)).toBe(true);
      expect(await storedObjects(hub)).toEqual([key]);
      expect(await staged(hub)).toEqual([]);
    });
  });

  it('holds uploaded bytes only once they are in place, whichever way they came', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await serviceToken(url, await browserLogin(url, 'ada'), 'rawstore');
      const bytes = Buffer.from('id,name\n1,slow\n');
      const key = `${Buffer.from(md5Base64(bytes), 'base64').toString('hex')}.csv`;
      // The store takes its time over the bytes: until it is done, they are nobody's.
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let storing = (): void => undefined;
      const started = new Promise<void>((resolve) => (storing = resolve));
      const storage = hub.storage as { putFile: Storage['putFile']; copy: Storage['copy'] };
      for (const method of ['putFile', 'copy'] as const) {
        const original = storage[method].bind(storage) as (...args: unknown[]) => Promise<void>;
        storage[method] = async (...args: unknown[]) => {
          storing();
          await gate;
          await original(...args);
        };
      }
      const entry = (
        (await (
          await authorizeUploads(url, ada, new Map([['slow.csv', bytes]]), 'published', [
            'PUT',
            'POST',
          ])
        ).json()) as AuthorizeReply
      ).filedata['slow.csv'];
      if (!entry) throw new Error('no entry');
      let done: Promise<unknown>;
      if (entry.upload_method === 'PUT') {
        const headers = { ...entry.upload_headers };
        delete headers['Content-Length'];
        await fetch(entry.upload_url, { method: 'PUT', headers, body: bytes });
        done = claimStaged(hub, ada.userid, key, false);
      } else
        done = fetch(entry.upload_url, {
          method: 'POST',
          body: uploadForm(entry.upload_query, bytes),
        });
      await started;
      expect(await hub.store.holds(ada.userid, key)).toBe(false);
      release();
      await done;
      expect(await hub.store.holds(ada.userid, key)).toBe(true);
      expect(await storedObjects(hub)).toEqual([key]);
    });
  });
});
