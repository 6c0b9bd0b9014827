import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FolderStorage } from '../../packages/hub/src/engines/storage/folder.js';
import { openStorage } from '../../packages/hub/src/engines/storage/open.js';
import { parseS3Address } from '../../packages/hub/src/engines/storage/s3.js';
import { StorageAddressError, type Storage } from '../../packages/hub/src/engines/storage/types.js';
import { readAll } from '../../packages/hub/src/http/send-file.js';
import { tempDir, testStorage } from './helpers.js';

/** The engine of this run: a bucket on the Swift run, a folder on the default one. */
let storage: Storage;
const folder = tempDir();
const scratch = mkdtempSync(join(tmpdir(), 'data-storage-'));
beforeAll(async () => {
  storage = await openStorage(testStorage() ?? folder);
});
afterAll(() => {
  storage.close();
  rmSync(folder, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});

const md5 = (bytes: Buffer) => createHash('md5').update(bytes).digest('base64');

async function text(key: string, range?: { start: number; end: number }): Promise<string> {
  return (await readAll(await storage.read(key, range))).toString('utf8');
}

describe('storage, on this run’s engine', () => {
  it('stores a file under its key once, reads it whole and by range, and tells its size', async () => {
    const bytes = Buffer.from('id,name\n1,one\n2,two\n');
    const file = join(scratch, 'one.csv');
    writeFileSync(file, bytes);
    const meta = { md5: md5(bytes), length: bytes.length, type: 'text/csv' };
    await storage.putFile('objects/one.csv', file, meta);
    // The same key again keeps what is there: objects are immutable.
    writeFileSync(join(scratch, 'other.csv'), 'something else entirely\n');
    await storage.putFile('objects/one.csv', join(scratch, 'other.csv'), meta);
    expect(await text('objects/one.csv')).toBe(bytes.toString());
    expect(await text('objects/one.csv', { start: 3, end: 6 })).toBe('name');
    const info = await storage.stat('objects/one.csv');
    expect(info?.size).toBe(bytes.length);
    if (info?.md5 !== undefined)
      expect(info.md5).toBe(createHash('md5').update(bytes).digest('hex'));
    expect(await storage.stat('objects/none.csv')).toBeUndefined();
    await expect(storage.read('objects/none.csv')).rejects.toThrow();
  });

  it('replaces a text file whole, changing its version', async () => {
    await storage.putText('packages/u/d/1/datapackage.json', '{"name":"a"}', 'application/json');
    const first = await storage.stat('packages/u/d/1/datapackage.json');
    await storage.putText('packages/u/d/1/datapackage.json', '{"name":"bb"}', 'application/json');
    const second = await storage.stat('packages/u/d/1/datapackage.json');
    expect(await text('packages/u/d/1/datapackage.json')).toBe('{"name":"bb"}');
    expect(second?.version).not.toBe(first?.version);
  });

  it('lists, copies, materializes and deletes by key and by prefix', async () => {
    for (const name of ['a', 'b', 'c'])
      await storage.putText(`packages/lister/set/1/${name}.json`, name, 'application/json');
    await storage.putText('packages/lister/other/1/x.json', 'x', 'application/json');
    const listed = [];
    for await (const entry of storage.list('packages/lister/set/')) listed.push(entry);
    expect(listed.sort((p, q) => p.key.localeCompare(q.key))).toEqual([
      { key: 'packages/lister/set/1/a.json', size: 1 },
      { key: 'packages/lister/set/1/b.json', size: 1 },
      { key: 'packages/lister/set/1/c.json', size: 1 },
    ]);
    await storage.copy('packages/lister/set/1/a.json', 'uploads/lister/a.json');
    expect(await text('uploads/lister/a.json')).toBe('a');
    const local = join(scratch, 'a.json');
    await storage.materialize('uploads/lister/a.json', local);
    expect(readFileSync(local, 'utf8')).toBe('a');
    await storage.delete('uploads/lister/a.json');
    expect(await storage.stat('uploads/lister/a.json')).toBeUndefined();
    await storage.deletePrefix('packages/lister/set/');
    const left = [];
    for await (const entry of storage.list('packages/lister/')) left.push(entry.key);
    expect(left).toEqual(['packages/lister/other/1/x.json']);
  });
});

describe('a folder', () => {
  it.each(['objects/../../keys.json', 'packages/u/d/1/../../../../etc/passwd', './x', 'a\\..\\b'])(
    'never turns the key %s into a path outside itself',
    (key) => {
      expect(() => new FolderStorage(folder).pathOf(key)).toThrow('leaves the folder');
    },
  );
});

describe('storage addresses', () => {
  it('reads a bucket, a prefix and the options of an S3-compatible store', () => {
    expect(
      parseS3Address(
        's3://hub-data/site/one/?endpoint=http%3A%2F%2F127.0.0.1%3A8080&region=eu-west-1&path_style=true',
      ),
    ).toEqual({
      bucket: 'hub-data',
      prefix: 'site/one/',
      endpoint: 'http://127.0.0.1:8080',
      region: 'eu-west-1',
      pathStyle: true,
    });
    expect(parseS3Address('s3://hub-data')).toEqual({
      bucket: 'hub-data',
      prefix: '',
      pathStyle: false,
    });
  });

  it.each([
    ['s3://', 'is not an s3://<bucket>'],
    ['s3://id:secret@bucket', 'put no credentials'],
    ['s3://bucket?path_style=yes', 'path_style is true or false'],
    ['s3://bucket?endpoint=file:///etc', 'not an http(s) address'],
    ['s3://bucket?acl=public', 'unknown storage option "acl"'],
  ])('refuses %s', (address, message) => {
    expect(() => parseS3Address(address)).toThrow(message);
    try {
      parseS3Address(address);
    } catch (error) {
      expect(error).toBeInstanceOf(StorageAddressError);
      expect(String(error)).not.toContain('secret');
    }
  });
});

describe('an S3-compatible store asked whether it takes multipart uploads', () => {
  it('keeps a refusal for good, and asks again after a failure that says nothing of them', async () => {
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    // What the store answers a new multipart upload, as the test goes on.
    let answer: { status: number; code: string } = { status: 503, code: 'ServiceUnavailable' };
    let asked = 0;
    const server = createServer((request, response) => {
      request.resume();
      if (request.method === 'HEAD') return void response.writeHead(200).end();
      if (request.method === 'POST' && request.url?.includes('uploads')) {
        asked++;
        response.writeHead(answer.status, { 'content-type': 'application/xml' });
        return void response.end(
          `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${answer.code}</Code><Message>no</Message></Error>`,
        );
      }
      response.writeHead(500).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const store = await openStorage(
      `s3://bucket?endpoint=http%3A%2F%2F127.0.0.1%3A${String(port)}&region=us-east-1&path_style=true`,
    );
    try {
      expect(await store.multipart?.supported()).toEqual({ takes: false });
      const afterFailure = asked;
      expect(afterFailure).toBeGreaterThan(0);
      answer = { status: 501, code: 'NotImplemented' };
      expect(await store.multipart?.supported()).toEqual({
        takes: false,
        refusal: 'NotImplemented (HTTP 501)',
      });
      expect(asked).toBe(afterFailure + 1);
      answer = { status: 503, code: 'ServiceUnavailable' };
      expect(await store.multipart?.supported()).toMatchObject({
        takes: false,
        refusal: 'NotImplemented (HTTP 501)',
      });
      expect(asked).toBe(afterFailure + 1);
    } finally {
      store.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
