import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  authorizeDigestAfter,
  authorizeUploads,
  browserLogin,
  crc32Base64,
  md5Base64,
  runData,
  serviceToken,
  storedObjects,
  uploadForm,
  uploadFormDigestAfter,
  withHub,
  type AuthorizeReply,
} from './helpers.js';

/** Uploads the hub is still writing, or left behind. */
function partial(folder: string): string[] {
  return readdirSync(folder).filter((name) => name.endsWith('.part'));
}

type Entry = AuthorizeReply['filedata'][string];

/** A form for `path`, asked for before the digest of `bytes` is known. */
async function laterForm(
  url: string,
  rawstore: { token: string; userid: string },
  path: string,
  length: number,
): Promise<Entry> {
  const response = await authorizeDigestAfter(url, rawstore, new Map([[path, length]]));
  expect(response.status).toBe(200);
  const entry = ((await response.json()) as AuthorizeReply).filedata[path];
  if (!entry) throw new Error(`no entry for ${path}`);
  return entry;
}

/** A form for `path`, signed with the digest of `bytes`. */
async function signedForm(
  url: string,
  rawstore: { token: string; userid: string },
  path: string,
  bytes: Buffer,
): Promise<Entry> {
  const reply = (await (
    await authorizeUploads(url, rawstore, new Map([[path, bytes]]))
  ).json()) as AuthorizeReply;
  const entry = reply.filedata[path];
  if (!entry) throw new Error(`no entry for ${path}`);
  return entry;
}

function post(entry: Entry, body: FormData): Promise<Response> {
  return fetch(entry.upload_url, { method: 'POST', body });
}

async function errorOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: string }).error;
}

async function signedIn(url: string): Promise<{ token: string; userid: string }> {
  return serviceToken(url, await browserLogin(url, 'ada'), 'rawstore');
}

describe('uploads whose digest follows the file', () => {
  it('stores the bytes under their digest, answers where, and then counts them as held', async () => {
    await withHub({}, async ({ url, hub }) => {
      const rawstore = await signedIn(url);
      const bytes = Buffer.from('id,name\n1,Ada\n2,Grace\n');
      const entry = await laterForm(url, rawstore, 'data/people.CSV', bytes.length);
      if (hub.storage.direct) {
        // A store that takes uploads itself gets them straight from the client, once hashed.
        expect(entry).toEqual({ digest: 'first' });
        return;
      }
      expect(entry.digest).toBe('after');
      expect(entry.upload_query).not.toHaveProperty('key');
      expect(entry.upload_query).not.toHaveProperty('Content-MD5');
      expect(entry).not.toHaveProperty('object_url');
      const md5 = md5Base64(bytes);
      const stored = await post(
        entry,
        uploadFormDigestAfter(entry.upload_query, bytes, { 'Content-MD5': md5 }),
      );
      expect(stored.status).toBe(200);
      const key = `${Buffer.from(md5, 'base64').toString('hex')}.csv`;
      expect(await stored.json()).toEqual({ object_url: `${url}/rawstore/objects/${key}`, md5 });
      expect(await storedObjects(hub)).toEqual([key]);
      const again = await signedForm(url, rawstore, 'data/people.CSV', bytes);
      expect(again.exists).toBe(true);
      expect(partial(hub.tmpDir)).toEqual([]);
    });
  });

  it('refuses bytes that do not match the digest after them, or come without one, and keeps nothing', async () => {
    await withHub({}, async ({ url, hub }) => {
      if (hub.storage.direct) return;
      const rawstore = await signedIn(url);
      const bytes = Buffer.from('a,b\n1,2\n');
      const otherBytes = Buffer.from('a,b\n1,3\n');
      const md5 = md5Base64(bytes);
      const crc = crc32Base64(bytes);
      const checksums: [Record<string, string>, RegExp][] = [
        [{ 'Content-MD5': md5Base64(otherBytes) }, /do not match Content-MD5/],
        [{}, /"Content-MD5" or "x-amz-checksum-crc32" field after the file/],
        [{ 'Content-MD5': 'not a digest' }, /do not match Content-MD5/],
        [{ 'x-amz-checksum-crc32': crc32Base64(otherBytes) }, /do not match x-amz-checksum-crc32/],
        [{ 'x-amz-checksum-crc32': 'AAAAAA==' }, /do not match x-amz-checksum-crc32/],
        // Both may come: each must match.
        [{ 'Content-MD5': md5, 'x-amz-checksum-crc32': 'AAAAAA==' }, /x-amz-checksum-crc32/],
        [{ 'Content-MD5': md5Base64(otherBytes), 'x-amz-checksum-crc32': crc }, /Content-MD5/],
      ];
      const announce = { 'x-amz-checksum-algorithm': 'CRC32' };
      const cases: [Record<string, string>, Record<string, string>, RegExp][] = [
        ...checksums.map(
          ([after, message]): [Record<string, string>, Record<string, string>, RegExp] => [
            'x-amz-checksum-crc32' in after ? announce : {},
            after,
            message,
          ],
        ),
        // A CRC32 the form did not announce before the file was not taken.
        [{}, { 'x-amz-checksum-crc32': crc }, /needs "x-amz-checksum-algorithm: CRC32" before/],
      ];
      for (const [before, after, message] of cases) {
        const entry = await laterForm(url, rawstore, 'x.csv', bytes.length);
        const query = { ...entry.upload_query, ...before };
        const response = await post(entry, uploadFormDigestAfter(query, bytes, after));
        expect(response.status, JSON.stringify(after)).toBe(400);
        expect(await errorOf(response)).toMatch(message);
      }
      expect(await storedObjects(hub)).toEqual([]);
      expect(partial(hub.tmpDir)).toEqual([]);
    });
  });

  it('binds the form as one signed with its digest: fields, signature and length', async () => {
    await withHub({}, async ({ url, hub }) => {
      if (hub.storage.direct) return;
      const rawstore = await signedIn(url);
      const bytes = Buffer.from('a,b\n1,2\n');
      const md5 = md5Base64(bytes);
      const entry = await laterForm(url, rawstore, 'x.csv', bytes.length);
      const attempts: [Record<string, string>, Buffer, number][] = [
        // A digest before the file would let a client name the key it pleased.
        [{ ...entry.upload_query, 'Content-MD5': md5 }, bytes, 403],
        [{ ...entry.upload_query, 'x-amz-checksum-crc32': crc32Base64(bytes) }, bytes, 403],
        [{ ...entry.upload_query, 'x-amz-checksum-algorithm': 'SHA256' }, bytes, 403],
        [{ ...entry.upload_query, key: `${'0'.repeat(32)}.csv` }, bytes, 403],
        [{ ...entry.upload_query, 'Content-Type': 'text/html' }, bytes, 403],
        [{ ...entry.upload_query, Signature: 'x' }, bytes, 403],
        [entry.upload_query, Buffer.concat([bytes, Buffer.from('3,4\n')]), 400],
        [entry.upload_query, bytes.subarray(1), 400],
      ];
      for (const [query, body, status] of attempts) {
        const response = await post(
          entry,
          uploadFormDigestAfter(query, body, { 'Content-MD5': md5Base64(body) }),
        );
        expect(response.status, JSON.stringify(query)).toBe(status);
        await response.text();
      }
      expect(await storedObjects(hub)).toEqual([]);
    });
  });

  it("takes the file's CRC32 after it instead of its MD5, and answers with the MD5", async () => {
    await withHub({}, async ({ url, hub }) => {
      if (hub.storage.direct) return;
      const rawstore = await signedIn(url);
      // The CRC-32 check value: of "123456789", 0xcbf43926.
      const bytes = Buffer.from('123456789');
      const check = Buffer.from('cbf43926', 'hex').toString('base64');
      const entry = await laterForm(url, rawstore, 'digits.txt', bytes.length);
      const stored = await post(
        entry,
        uploadFormDigestAfter(
          { ...entry.upload_query, 'x-amz-checksum-algorithm': 'CRC32' },
          bytes,
          { 'x-amz-checksum-crc32': check },
        ),
      );
      expect(stored.status).toBe(200);
      const md5 = md5Base64(bytes);
      const key = `${Buffer.from(md5, 'base64').toString('hex')}.txt`;
      expect(await stored.json()).toEqual({ object_url: `${url}/rawstore/objects/${key}`, md5 });
      expect(await storedObjects(hub)).toEqual([key]);
      // A form signed with the digest takes no CRC32: it would be checked against nothing.
      const other = Buffer.from('987654321');
      const signed = await signedForm(url, rawstore, 'other.txt', other);
      const refused = await post(
        signed,
        uploadFormDigestAfter(signed.upload_query, other, {
          'x-amz-checksum-crc32': crc32Base64(other),
        }),
      );
      expect(refused.status).toBe(400);
      expect(await errorOf(refused)).toMatch(/taken only on forms signed without a digest/);
      const announced = await post(
        signed,
        uploadFormDigestAfter(
          { ...signed.upload_query, 'x-amz-checksum-algorithm': 'CRC32' },
          other,
          {},
        ),
      );
      expect(announced.status).toBe(403);
      await announced.text();
      expect(await storedObjects(hub)).toEqual([key]);
    });
  });

  it('says whether the caller holds an object that may be the file: same length, same head', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await signedIn(url);
      const grace = await serviceToken(url, await browserLogin(url, 'grace'), 'rawstore');
      // Two files of one length, alike in their first 64 KiB and not after.
      const held = Buffer.alloc(70_000, 'a');
      const alike = Buffer.concat([held.subarray(0, 65_536), Buffer.alloc(4_464, 'b')]);
      const unlike = Buffer.alloc(70_000, 'c');
      const head = (bytes: Buffer) => md5Base64(bytes.subarray(0, 65_536));
      const files = new Map([
        ['alike.bin', { length: alike.length, head_md5: head(alike) }],
        ['unlike.bin', { length: unlike.length, head_md5: head(unlike) }],
        ['no-head.bin', { length: unlike.length }],
        ['longer.bin', { length: alike.length + 1, head_md5: head(alike) }],
      ]);
      const mayExist = async (rawstore: { token: string; userid: string }) => {
        if (hub.storage.direct) {
          const answers = [...files.values()].map((file) =>
            hub.store.mayHold(rawstore.userid, file.length, file.head_md5),
          );
          return Promise.all(answers);
        }
        const response = await authorizeDigestAfter(url, rawstore, files);
        const reply = (await response.json()) as AuthorizeReply;
        return [...files.keys()].map((path) => reply.filedata[path]?.may_exist);
      };
      expect(await mayExist(ada)).toEqual([false, false, false, false]);
      const entry = await signedForm(url, ada, 'held.bin', held);
      const stored = await post(entry, uploadForm(entry.upload_query, held));
      expect(stored.status).toBe(204);
      expect(await mayExist(ada)).toEqual([true, false, true, false]);
      // What grace asks says nothing of ada's files.
      expect(await mayExist(grace)).toEqual([false, false, false, false]);
      // A holding from before heads were recorded may be any file of its length.
      const old = { ownerid: grace.userid, key: `${'0'.repeat(32)}.bin`, bytes: 70_000 };
      await hub.store.importRows('holdings', [{ ...old, private: 0, created: 'then' }]);
      expect(await mayExist(grace)).toEqual([true, true, true, false]);
    });
  });

  it('is refused without "digest_after", as a missing digest always was, or with a malformed head', async () => {
    await withHub({}, async ({ url }) => {
      const rawstore = await signedIn(url);
      const response = await authorizeDigestAfter(url, rawstore, new Map([['x.csv', 8]]), {
        digestAfter: false,
      });
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatch(/"md5" must be the base64 of an MD5 digest/);
      for (const head of ['', 'AAAA', 7]) {
        const file = { length: 8, head_md5: head as string };
        const refused = await authorizeDigestAfter(url, rawstore, new Map([['x.csv', file]]));
        expect(refused.status).toBe(400);
        expect(await errorOf(refused)).toMatch(/"head_md5" must be the base64 of an MD5 digest/);
      }
    });
  });

  it('holds the quota: asked for up front, and again when the bytes land', async () => {
    await withHub({ maxStorageBytes: 25_000 }, async ({ url, hub }) => {
      if (hub.storage.direct) return;
      const rawstore = await signedIn(url);
      const refused = await authorizeDigestAfter(url, rawstore, new Map([['big.bin', 30_000]]));
      expect(refused.status).toBe(403);
      const files = [0, 1, 2].map((index) => Buffer.alloc(10_000, String(index)));
      const entries = await Promise.all(
        files.map((bytes, index) =>
          laterForm(url, rawstore, `f${String(index)}.bin`, bytes.length),
        ),
      );
      const statuses = [];
      for (const [index, entry] of entries.entries()) {
        const bytes = files[index] ?? Buffer.alloc(0);
        const response = await post(
          entry,
          uploadFormDigestAfter(entry.upload_query, bytes, { 'Content-MD5': md5Base64(bytes) }),
        );
        statuses.push(response.status);
        await response.text();
      }
      expect(statuses).toEqual([200, 200, 403]);
      expect(await storedObjects(hub)).toHaveLength(2);
    });
  });

  it('data publish sends a large file before its digest, and skips it when it is stored already', async () => {
    const work = mkdtempSync(join(tmpdir(), 'data-later-'));
    try {
      await withHub({}, async ({ url, hub }) => {
        const rows = Array.from(
          { length: 700_000 },
          (_, id) => `${String(id)},value ${String(id)}`,
        );
        const table = Buffer.from(`id,name\n${rows.join('\n')}\n`);
        expect(table.length).toBeGreaterThan(8 * 1024 * 1024);
        mkdirSync(join(work, 'pkg'));
        writeFileSync(join(work, 'pkg/table.csv'), table);
        const descriptor = { name: 'later', resources: [{ name: 'table', path: 'table.csv' }] };
        writeFileSync(join(work, 'pkg/datapackage.json'), JSON.stringify(descriptor));
        const env = { DATA_API: url, DATA_TOKEN: await browserLogin(url, 'ada') };
        const first = await runData(['--json', 'publish', 'pkg'], { env, cwd: work });
        expect(first.err).not.toMatch(/^error/m);
        expect(first.code).toBe(0);
        expect(JSON.parse(first.out)).toMatchObject({
          state: 'SUCCEEDED',
          uploaded: ['datapackage.json', 'table.csv'],
        });
        const read = await fetch(`${url}/ada/later/r/table.csv`);
        expect(Buffer.from(await read.arrayBuffer()).equals(table)).toBe(true);
        const objects = await storedObjects(hub);
        expect(objects).toContain(`${Buffer.from(md5Base64(table), 'base64').toString('hex')}.csv`);

        descriptor.resources[0] = { ...descriptor.resources[0], title: 'A table' } as never;
        writeFileSync(join(work, 'pkg/datapackage.json'), JSON.stringify(descriptor));
        const second = await runData(['--json', 'publish', 'pkg'], { env, cwd: work });
        expect(second.code).toBe(0);
        expect(JSON.parse(second.out)).toMatchObject({
          state: 'SUCCEEDED',
          uploaded: ['datapackage.json'],
          skipped: ['table.csv'],
        });
        // The upload begun before the digest showed the table stored was let go, unkept.
        expect((await storedObjects(hub)).length).toBe(objects.length + 1);
        expect(partial(hub.tmpDir)).toEqual([]);
      });
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });

  it('takes an upload its client let go as no fault of its own: nothing logged, nothing kept', async () => {
    const lines: string[] = [];
    await withHub({ log: (line) => lines.push(line) }, async ({ url, hub }) => {
      const rawstore = await signedIn(url);
      const bytes = Buffer.alloc(4 * 1024 * 1024, 'x');
      const later = await laterForm(url, rawstore, 'later.bin', bytes.length);
      const before = await signedForm(url, rawstore, 'before.bin', bytes);
      for (const entry of [later, before]) {
        if (!entry?.upload_query || entry.digest === 'first') continue;
        const form = new Response(uploadFormDigestAfter(entry.upload_query, bytes, {}));
        const type = form.headers.get('content-type') ?? '';
        const body = Buffer.from(await form.arrayBuffer());
        await new Promise<void>((resolve) => {
          const sending = httpRequest(entry.upload_url, {
            method: 'POST',
            headers: { 'content-type': type, 'content-length': String(body.length) },
          });
          sending.on('error', () => undefined);
          sending.on('close', () => resolve());
          sending.write(body.subarray(0, body.length / 2), () =>
            setTimeout(() => sending.destroy(), 200),
          );
        });
      }
      // Its neighbours: JSON bodies cut short.
      for (const path of ['/rawstore/authorize', '/source/upload', '/auth/token']) {
        await new Promise<void>((resolve) => {
          const sending = httpRequest(`${url}${path}`, {
            method: 'POST',
            headers: {
              'auth-token': rawstore.token,
              'content-type': 'application/json',
              'content-length': '1000',
            },
          });
          sending.on('error', () => undefined);
          sending.on('close', () => resolve());
          sending.write('{"metadata": {', () => setTimeout(() => sending.destroy(), 200));
        });
      }
      for (let wait = 0; wait < 50 && partial(hub.tmpDir).length > 0; wait++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(partial(hub.tmpDir)).toEqual([]);
      expect(await storedObjects(hub)).toEqual([]);
      expect(lines.filter((line) => line.includes('internal error'))).toEqual([]);
    });
  });
});
