/**
 * The hub tried as an attacker would, over real HTTP: each describe is one class of attack,
 * and its tests try the reported case and its neighbours.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { loggableTarget, type RunningHub } from '../../packages/hub/src/server.js';
import { FolderStorage } from '../../packages/hub/src/engines/storage/folder.js';
import { startServe } from '../helpers/serve.js';
import {
  authorizeUploads,
  browserLogin,
  EXAMPLES,
  md5Base64,
  publish,
  readStored,
  serviceToken,
  storedObjects,
  uploadForm,
  waitForState,
  withHub,
  type AuthorizeReply,
} from './helpers.js';

const CITIES = join(EXAMPLES, 'cities');
const CITIES_CSV = readFileSync(join(CITIES, 'data/cities.csv'));

/** Uploads bytes as the token's user and returns the stored object's URL. */
async function store(
  url: string,
  jwt: string,
  path: string,
  bytes: Buffer,
  findability = 'published',
) {
  const rawstore = await serviceToken(url, jwt, 'rawstore');
  const reply = (await (
    await authorizeUploads(url, rawstore, new Map([[path, bytes]]), findability)
  ).json()) as AuthorizeReply;
  const entry = reply.filedata[path];
  if (!entry) throw new Error('no filedata');
  const sent = await fetch(entry.upload_url, {
    method: 'POST',
    body: uploadForm(entry.upload_query, bytes),
  });
  return {
    objectUrl: `${entry.upload_url}/${entry.upload_query.key ?? ''}`,
    status: sent.status,
    entry,
  };
}

/** Posts a flow spec as the token's user and waits for its end. */
async function submit(
  url: string,
  jwt: string,
  dataset: string,
  descriptor: Record<string, unknown>,
  mapping: Record<string, string>,
  findability?: string,
) {
  const source = await serviceToken(url, jwt, 'source');
  const reply = await fetch(`${url}/source/upload`, {
    method: 'POST',
    headers: { 'Auth-Token': source.token, 'content-type': 'application/json' },
    body: JSON.stringify({
      meta: {
        ownerid: source.userid,
        owner: 'x',
        dataset,
        ...(findability ? { findability } : {}),
      },
      inputs: [
        {
          kind: 'datapackage',
          url: `${url}/rawstore/objects/x`,
          parameters: { descriptor, 'resource-mapping': mapping },
        },
      ],
    }),
  });
  const body = (await reply.json()) as { flow_id?: string; errors?: string[] };
  if (!body.flow_id)
    return {
      state: 'REFUSED',
      id: '',
      status: reply.status,
      errors: body.errors ?? [],
      error_log: [] as string[],
    };
  return {
    ...(await waitForState(url, body.flow_id, jwt)),
    id: body.flow_id,
    status: reply.status,
    errors: [],
  };
}

/** A one-resource package of a stored file, submitted as the token's user. */
function submitFile(
  url: string,
  jwt: string,
  dataset: string,
  name: string,
  path: string,
  objectUrl: string,
) {
  return submit(
    url,
    jwt,
    dataset,
    { name: dataset, resources: [{ name, path }] },
    { [path]: objectUrl },
  );
}

/** Every stored object still holds the bytes its key names. */
async function objectsIntact(hub: RunningHub['hub']): Promise<boolean> {
  const keys = await storedObjects(hub);
  for (const key of keys) {
    const digest = createHash('md5')
      .update(await readStored(hub, `objects/${key}`))
      .digest('hex');
    if (!key.startsWith(digest)) return false;
  }
  return keys.length > 0;
}

describe('writes through shared objects', () => {
  it.each(['datapackage.json', 'validation_report.json', 'data/../datapackage.json'])(
    'a resource at %s mapped to stored bytes never changes them',
    async (path) => {
      await withHub({}, async ({ url, hub }) => {
        const ada = await browserLogin(url, 'ada');
        await waitForState(url, (await publish(url, ada, CITIES)).flowId);
        const mallory = await browserLogin(url, 'mallory');
        const { objectUrl } = await store(url, mallory, 'cities.csv', CITIES_CSV);
        await submit(
          url,
          mallory,
          'clobber',
          { name: 'clobber', resources: [{ name: 'x', path }] },
          { [path]: objectUrl },
        );
        expect(await objectsIntact(hub)).toBe(true);
        const served = Buffer.from(
          await (await fetch(`${url}/ada/world-cities/r/cities.csv`)).arrayBuffer(),
        );
        expect(served.equals(CITIES_CSV)).toBe(true);
      });
    },
  );

  it('keeps stored objects intact, read-only and with one link each in a folder, however often they are published', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await browserLogin(url, 'ada');
      for (const dataset of ['one', 'two', 'three'])
        await waitForState(url, (await publish(url, ada, CITIES, { dataset })).flowId);
      expect(await objectsIntact(hub)).toBe(true);
      const { storage } = hub;
      if (!(storage instanceof FolderStorage)) return;
      for (const key of await storedObjects(hub)) {
        const info = statSync(storage.pathOf(`objects/${key}`));
        expect(info.nlink).toBe(1);
        expect(info.mode & 0o222).toBe(0);
      }
    });
  });
});

describe('deleting a dataset', () => {
  it('is its owner alone: others get 403, or 404 for a private one, and a cookie is not enough', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await browserLogin(url, 'ada');
      await waitForState(url, (await publish(url, ada, CITIES)).flowId);
      await waitForState(
        url,
        (await publish(url, ada, CITIES, { dataset: 'secret', findability: 'private' })).flowId,
        ada,
      );
      const ownerid = (await hub.store.userByName('ada'))?.userid ?? '';
      const mallory = await browserLogin(url, 'mallory');
      const remove = (dataset: string, headers: Record<string, string>) =>
        fetch(`${url}/source/${ownerid}/${dataset}`, { method: 'DELETE', headers });
      expect((await remove('world-cities', { 'Auth-Token': mallory })).status).toBe(403);
      expect((await remove('secret', { 'Auth-Token': mallory })).status).toBe(404);
      expect((await remove('world-cities', { cookie: `data_session=${ada}` })).status).toBe(401);
      const rawstore = await serviceToken(url, ada, 'rawstore');
      expect((await remove('world-cities', { 'Auth-Token': rawstore.token })).status).toBe(401);
      expect((await fetch(`${url}/ada/world-cities/datapackage.json`)).status).toBe(200);
      const files = async (dataset: string) => {
        const keys = [];
        for await (const { key } of hub.storage.list(`packages/${ownerid}/${dataset}/`))
          keys.push(key);
        return keys;
      };
      const written = ['datapackage.json', 'validation_report.json'];
      const ownFiles = (keys: string[]) =>
        keys
          .map((key) => key.split('/').pop() ?? '')
          .filter((name) => written.includes(name))
          .sort();
      expect(ownFiles(await files('world-cities'))).toEqual(written);
      expect((await remove('world-cities', { 'Auth-Token': ada })).status).toBe(200);
      expect((await fetch(`${url}/ada/world-cities/datapackage.json`)).status).toBe(404);
      expect(await files('world-cities')).toEqual([]);
      expect(ownFiles(await files('secret'))).toEqual(written);
    });
  });
});

describe('content hashes are not capabilities', () => {
  it('exists, presign and the pipeline speak only of the caller own objects', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const secret = Buffer.from('id,secret\n1,launch codes\n');
      const { objectUrl } = await store(url, ada, 'secret.csv', secret, 'private');
      const mallory = await browserLogin(url, 'mallory');
      const rawstore = await serviceToken(url, mallory, 'rawstore');
      const reply = (await (
        await authorizeUploads(url, rawstore, new Map([['guess.csv', secret]]), 'private')
      ).json()) as AuthorizeReply;
      expect(reply.filedata['guess.csv']?.exists).toBe(false);
      // Asked to upload, never uploaded: no presign, and no use in a revision.
      const presign = await fetch(
        `${url}/rawstore/presign?ownerid=${rawstore.userid}&url=${encodeURIComponent(objectUrl)}`,
        { headers: { 'Auth-Token': rawstore.token } },
      );
      expect(presign.status).toBe(404);
      const status = await submitFile(url, mallory, 'stolen', 's', 'secret.csv', objectUrl);
      expect(status.state).toBe('FAILED');
      expect(status.error_log.join(' ')).toContain('no stored object of yours');
      expect((await fetch(`${url}/mallory/stolen/r/secret.csv`)).status).toBe(404);
    });
  });

  it('serves raw objects, public ones too, only at URLs presigned for their holders', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const { objectUrl } = await store(url, ada, 'cities.csv', CITIES_CSV, 'published');
      expect((await fetch(objectUrl)).status).toBe(404);
      const presign = async (jwt: string) => {
        const rawstore = await serviceToken(url, jwt, 'rawstore');
        return fetch(
          `${url}/rawstore/presign?ownerid=${rawstore.userid}&url=${encodeURIComponent(objectUrl)}`,
          { headers: { 'Auth-Token': rawstore.token } },
        );
      };
      expect((await presign(await browserLogin(url, 'eve'))).status).toBe(404);
      const signed = ((await (await presign(ada)).json()) as { url: string }).url;
      const served = Buffer.from(await (await fetch(signed)).arrayBuffer());
      expect(served.equals(CITIES_CSV)).toBe(true);
    });
  });

  it('stores the same bytes for a second user who uploads them, and then lets that user use them', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      await store(url, ada, 'cities.csv', CITIES_CSV);
      const grace = await browserLogin(url, 'grace');
      const { status, objectUrl, entry } = await store(url, grace, 'cities.csv', CITIES_CSV);
      expect(entry.exists).toBe(false);
      expect(status).toBe(204);
      const state = await submitFile(url, grace, 'mine', 'c', 'cities.csv', objectUrl);
      expect(state.state).toBe('SUCCEEDED');
    });
  });
});

describe('findability takes effect when a revision succeeds', () => {
  it('a failed public revision leaves a private dataset private', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      await waitForState(
        url,
        (await publish(url, ada, CITIES, { findability: 'private' })).flowId,
        ada,
      );
      const failed = await submit(
        url,
        ada,
        'world-cities',
        { name: 'world-cities', resources: [{ name: 'm', path: 'missing.csv' }] },
        {},
        'published',
      );
      expect(failed.state).toBe('FAILED');
      expect((await fetch(`${url}/ada/world-cities/datapackage.json`)).status).toBe(404);
      expect((await fetch(`${url}/ada/world-cities`)).status).toBe(404);
      expect((await fetch(`${url}/source/${failed.id}`)).status).toBe(404);
    });
  });

  it('a later public revision does not expose an earlier private one', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      await waitForState(
        url,
        (await publish(url, ada, CITIES, { findability: 'private' })).flowId,
        ada,
      );
      await waitForState(
        url,
        (await publish(url, ada, CITIES, { findability: 'published' })).flowId,
        ada,
      );
      expect((await fetch(`${url}/ada/world-cities/datapackage.json?v=2`)).status).toBe(200);
      expect((await fetch(`${url}/ada/world-cities/datapackage.json?v=1`)).status).toBe(404);
      expect((await fetch(`${url}/ada/world-cities/r/cities.csv?v=1`)).status).toBe(404);
      expect((await fetch(`${url}/ada/world-cities/v/1`)).status).toBe(404);
      expect(
        (
          await fetch(`${url}/ada/world-cities/datapackage.json?v=1`, {
            headers: { 'Auth-Token': ada },
          })
        ).status,
      ).toBe(200);
    });
  });

  it('a revision that names no findability keeps the dataset private', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const { objectUrl } = await store(url, ada, 'cities.csv', CITIES_CSV, 'private');
      const descriptor = { name: 'quiet', resources: [{ name: 'c', path: 'cities.csv' }] };
      expect(
        (await submit(url, ada, 'quiet', descriptor, { 'cities.csv': objectUrl }, 'private')).state,
      ).toBe('SUCCEEDED');
      expect((await submit(url, ada, 'quiet', descriptor, { 'cities.csv': objectUrl })).state).toBe(
        'SUCCEEDED',
      );
      expect((await fetch(`${url}/ada/quiet/datapackage.json`)).status).toBe(404);
    });
  });
});

describe('server-side requests', () => {
  async function listener(): Promise<{ server: Server; port: number; hits: string[] }> {
    const hits: string[] = [];
    const server = createServer((request, response) => {
      hits.push(request.url ?? '');
      response.end(request.url?.endsWith('.json') ? '{"fields":[{"name":"a"}]}' : 'a\n1\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return { server, port: typeof address === 'object' && address ? address.port : 0, hits };
  }

  it('fetches no resource, schema or redirect a user names, unless the operator allows its host', async () => {
    const inside = await listener();
    try {
      const remote = `http://127.0.0.1:${String(inside.port)}`;
      const descriptor = {
        name: 'probe',
        resources: [
          { name: 'data', path: `${remote}/internal.csv` },
          { name: 'schema', path: 'local.csv', schema: `${remote}/schema.json` },
        ],
      };
      await withHub({}, async ({ url }) => {
        const ada = await browserLogin(url, 'ada');
        const { objectUrl } = await store(url, ada, 'local.csv', Buffer.from('a\n1\n'));
        const status = await submit(url, ada, 'probe', descriptor, { 'local.csv': objectUrl });
        expect(status.state).toBe('FAILED');
        expect(status.error_log.join(' ')).toContain('does not fetch from 127.0.0.1');
        expect(inside.hits).toEqual([]);
      });
      await withHub({ fetchHosts: [`127.0.0.1:${String(inside.port)}`] }, async ({ url }) => {
        const ada = await browserLogin(url, 'ada');
        const { objectUrl } = await store(url, ada, 'local.csv', Buffer.from('a\n1\n'));
        const allowed = await submit(url, ada, 'probe', descriptor, { 'local.csv': objectUrl });
        expect(allowed.error_log).toEqual([]);
        expect(allowed.state).toBe('SUCCEEDED');
        expect([...new Set(inside.hits)].sort()).toEqual(['/internal.csv', '/schema.json']);
      });
    } finally {
      inside.server.close();
    }
  });
});

describe('bounded memory', () => {
  it.each(['01', '001', '-1', '1.0', '1e3', 'abc', '99999999999'])(
    'answers ?v=%s with 400',
    async (v) => {
      await withHub({}, async ({ url }) => {
        const ada = await browserLogin(url, 'ada');
        await waitForState(url, (await publish(url, ada, CITIES)).flowId);
        expect((await fetch(`${url}/ada/world-cities/datapackage.json?v=${v}`)).status).toBe(400);
      });
    },
  );

  it('keeps the read cache within its byte budget whatever keys requests make up', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await browserLogin(url, 'ada');
      await waitForState(url, (await publish(url, ada, CITIES)).flowId);
      for (let index = 0; index < 300; index++)
        await (await fetch(`${url}/ada/world-cities/datapackage.json?x=${String(index)}`)).text();
      expect(hub.lookups.size).toBe(1);
    });
  });

  it('fails a package with more resources than the hub takes, with the reason', async () => {
    await withHub({ limits: { resources: 3 } }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const resources = Array.from({ length: 4 }, (_, index) => ({
        name: `r${String(index)}`,
        path: `r${String(index)}.csv`,
      }));
      const status = await submit(url, ada, 'many', { name: 'many', resources }, {});
      expect(status.state).toBe('FAILED');
      expect(status.error_log.join(' ')).toContain('this hub takes at most 3');
    });
  });

  it('fails a line too long for the processing memory, and answers readers meanwhile', async () => {
    await withHub({ limits: { processingMemoryMb: 32, rowChars: 1 << 30 } }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      await waitForState(url, (await publish(url, ada, CITIES)).flowId);
      const line = Buffer.alloc(96 * 1024 * 1024, 'x');
      const { objectUrl } = await store(
        url,
        ada,
        'long.csv',
        Buffer.concat([Buffer.from('a\n'), line, Buffer.from('\n')]),
      );
      const pending = submitFile(url, ada, 'long', 'l', 'long.csv', objectUrl);
      // How long readers wait meanwhile is measured by npm run bench:limits; here, that they are answered.
      const reads = [];
      for (let index = 0; index < 10; index++) {
        const response = await fetch(`${url}/ada/world-cities/datapackage.json`);
        reads.push([response.status, ((await response.json()) as { name: string }).name]);
      }
      expect(reads).toEqual(Array.from({ length: 10 }, () => [200, 'world-cities']));
      const status = await pending;
      expect(status.state).toBe('FAILED');
      expect(status.error_log.join(' ')).toContain(
        'needs more memory to validate than this hub allows',
      );
    });
  }, 60_000);
});

describe('row limits', () => {
  async function failure(
    limits: { rowChars?: number; columns?: number },
    csv: Buffer,
  ): Promise<string> {
    return withHub({ limits }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const { objectUrl } = await store(url, ada, 't.csv', csv);
      const status = await submitFile(url, ada, 't', 't', 't.csv', objectUrl);
      expect(status.state).toBe('FAILED');
      return status.error_log.join(' ');
    });
  }

  it('stops at a row longer than the limit, and says so', async () => {
    const long = Buffer.from(`a,b\n1,2\n3,${'x'.repeat(400_000)}\n4,5\n`);
    expect(await failure({ rowChars: 100_000 }, long)).toContain(
      'row 3 is longer than 100,000 characters, the most this hub reads in one row',
    );
  });

  it('stops at a row with more cells than the limit, however many chunks the rows span', async () => {
    const wide = Buffer.from(
      `${Array.from({ length: 50 }, (_, index) => `c${String(index)}`).join(',')}\n`,
    );
    expect(await failure({ columns: 20 }, wide)).toContain(
      'row 1 has 50 cells; this hub reads at most 20 columns',
    );
    const columns = Array.from({ length: 100_000 }, (_, index) => index);
    const labels = columns.map((n) => `c${String(n)}`).join(',');
    const rows = Array.from({ length: 20 }, (_, row) => columns.map((n) => n + row).join(','));
    expect(await failure({}, Buffer.from(`${labels}\n${rows.join('\n')}\n`))).toContain(
      'row 1 has 100,000 cells; this hub reads at most 10,000 columns',
    );
  });
});

describe('quotas hold on bytes stored', () => {
  it('stores no more than the quota from forms signed up front', async () => {
    await withHub({ maxStorageBytes: 25_000 }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const rawstore = await serviceToken(url, ada, 'rawstore');
      const files = Array.from({ length: 5 }, (_, index) => Buffer.alloc(10_000, String(index)));
      const forms = await Promise.all(
        files.map(async (bytes, index) => {
          const path = `f${String(index)}.bin`;
          const reply = (await (
            await authorizeUploads(url, rawstore, new Map([[path, bytes]]))
          ).json()) as AuthorizeReply;
          return { bytes, entry: reply.filedata[path] };
        }),
      );
      const statuses = [];
      for (const { bytes, entry } of forms) {
        if (!entry) throw new Error('no form');
        statuses.push(
          (
            await fetch(entry.upload_url, {
              method: 'POST',
              body: uploadForm(entry.upload_query, bytes),
            })
          ).status,
        );
      }
      expect(statuses).toEqual([204, 204, 403, 403, 403]);
    });
  });

  it('counts the flow specs kept for revisions', async () => {
    await withHub({ maxStorageBytes: 50_000 }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const padding = 'x'.repeat(15_000);
      const states = [];
      for (let index = 0; index < 4; index++)
        states.push(
          (
            await submit(
              url,
              ada,
              'padded',
              { name: 'padded', description: padding, resources: [] },
              {},
            )
          ).status,
        );
      expect(states.slice(0, 3)).toEqual([200, 200, 200]);
      expect(states[3]).toBe(403);
    });
  });
});

describe('leftovers and leaks', () => {
  it('cleans a failed revision at once and shows no server path', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await browserLogin(url, 'ada');
      const { flowId } = await publish(url, ada, join(EXAMPLES, 'invalid-data'));
      const status = await waitForState(url, flowId, ada);
      expect(status.state).toBe('FAILED');
      const work = join(hub.tmpDir, 'work');
      expect(readdirSync(work)).toEqual([]);
      const everything =
        JSON.stringify(status) +
        (await (
          await fetch(`${url}/ada/staff-directory`, { headers: { 'Auth-Token': ada } })
        ).text());
      expect(everything).not.toContain(hub.options.dataDir);
      expect(everything).not.toContain(hub.tmpDir);
    });
  });

  it('hides tokens and one-time values of a request target in the log', () => {
    expect(loggableTarget('/auth/check?jwt=abc.def.ghi&next=x')).toBe(
      '/auth/check?jwt=%5Bhidden%5D&next=x',
    );
    expect(loggableTarget('/cb?code=1&state=2')).not.toMatch(/=1|=2/);
  });
});

describe('bad input answers', () => {
  it.each(['size=abc', 'from=-1', 'size=1e3', 'from=0x10'])(
    'answers search with %s with 400',
    async (query) => {
      await withHub({}, async ({ url }) => {
        expect((await fetch(`${url}/metastore/search?${query}`)).status).toBe(400);
      });
    },
  );

  it('answers a full disk with 507 and a plain reason', async () => {
    await withHub({}, async ({ url, hub }) => {
      const ada = await browserLogin(url, 'ada');
      // The disk filling up under the upload, as the kernel reports it.
      hub.store.addHolding = () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
          code: 'ENOSPC',
        });
      };
      const { status } = await store(url, ada, 'x.csv', Buffer.from('a\n1\n'));
      expect(status).toBe(507);
    });
  });

  it('answers a descriptor nested 100,000 levels deep with 400', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const source = await serviceToken(url, ada, 'source');
      const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
      const body = `{"meta":{"ownerid":"${source.userid}","dataset":"deep"},"inputs":[{"kind":"datapackage","url":"x","parameters":{"descriptor":{"x":${deep}},"resource-mapping":{}}}]}`;
      const response = await fetch(`${url}/source/upload`, {
        method: 'POST',
        headers: { 'Auth-Token': source.token },
        body,
      });
      expect(response.status).toBe(400);
    });
  });
});

describe('sign-in and page hardening', () => {
  it('refuses a cross-site sign-in post and a form without its CSRF pair', async () => {
    await withHub({}, async ({ url }) => {
      const post = (headers: Record<string, string>) =>
        fetch(`${url}/auth/login/local`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams({ username: 'mallory', email: 'm@example.org' }).toString(),
        });
      expect((await post({ origin: 'https://evil.example' })).status).toBe(403);
      expect((await post({ 'sec-fetch-site': 'cross-site' })).status).toBe(403);
      expect((await post({})).status).toBe(403);
    });
  });

  it.each(['http://127.0.0.1/cb', 'https://127.0.0.1:3000/cb', 'http://user:pw@127.0.0.1:3000/'])(
    'will not send a token to %s',
    async (next) => {
      await withHub({}, async ({ url }) => {
        expect(
          (await fetch(`${url}/auth/login/local?next=${encodeURIComponent(next)}`)).status,
        ).toBe(400);
      });
    },
  );

  it('sends security headers with pages and files', async () => {
    await withHub({}, async ({ url }) => {
      for (const path of ['/', '/auth/login/local', '/nothing/here']) {
        const response = await fetch(`${url}${path}`);
        expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
        expect(response.headers.get('x-frame-options')).toBe('DENY');
        expect(response.headers.get('x-content-type-options')).toBe('nosniff');
        expect(response.headers.get('referrer-policy')).toBe('same-origin');
      }
    });
  });
});

describe('identity', () => {
  it('gives users opaque ids, not the digest of their e-mail', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada', 'ada@example.org');
      const check = (await (
        await fetch(`${url}/auth/check`, { headers: { 'Auth-Token': ada } })
      ).json()) as {
        profile: { id: string };
      };
      expect(check.profile.id).toMatch(/^[0-9a-f]{32}$/);
      expect(check.profile.id).not.toBe(createHash('md5').update('ada@example.org').digest('hex'));
      expect(md5Base64(Buffer.from(check.profile.id))).not.toBe('');
    });
  });
});

describe('processing that would not end', () => {
  /** A CSV that never ends: a byte every 100 ms, so that no silence limit ends it either. */
  async function trickle(): Promise<{ server: Server; host: string; asked: Promise<void> }> {
    let heard = (): void => undefined;
    const asked = new Promise<void>((resolve) => (heard = resolve));
    const server = createServer((_request, response) => {
      heard();
      response.writeHead(200, { 'Content-Type': 'text/csv' });
      response.write('a\n');
      const timer = setInterval(() => response.write('1'), 100);
      response.on('close', () => clearInterval(timer));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    return { server, host: `127.0.0.1:${String(port)}`, asked };
  }

  const endless = (host: string) => ({
    name: 'endless',
    resources: [
      { name: 'local', path: 'local.csv' },
      { name: 'remote', path: `http://${host}/endless.csv` },
    ],
  });

  it('checks a pattern that would backtrack for ever on every cell, and fails the revision with the errors', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const cells = Array.from({ length: 50 }, (_, index) => `${'a'.repeat(30 + index)}!`);
      const { objectUrl } = await store(url, ada, 'v.csv', Buffer.from(`v\n${cells.join('\n')}\n`));
      const status = await submit(
        url,
        ada,
        'backtracking',
        {
          name: 'backtracking',
          resources: [
            {
              name: 'v',
              path: 'v.csv',
              schema: { fields: [{ name: 'v', constraints: { pattern: '(a+)+$' } }] },
            },
          ],
        },
        { 'v.csv': objectUrl },
      );
      expect(status.state).toBe('FAILED');
      expect(status.error_log.join(' ')).toContain('the data package is invalid: 50 errors');
    });
  });

  it('fails a revision past its time limit with the reason, and processes the next one', async () => {
    const remote = await trickle();
    try {
      await withHub(
        {
          fetchHosts: [remote.host],
          // Far above what the small package below takes, even on a busy machine.
          limits: { processingSeconds: 10 },
          pipeline: { slots: 1 },
        },
        async ({ url }) => {
          const ada = await browserLogin(url, 'ada');
          const { objectUrl } = await store(url, ada, 'local.csv', Buffer.from('a\n1\n'));
          const stuck = submit(url, ada, 'endless', endless(remote.host), {
            'local.csv': objectUrl,
          });
          await remote.asked;
          // Queued behind it on the hub's one pipeline worker.
          const grace = await browserLogin(url, 'grace');
          const next = await publish(url, grace, CITIES);
          const failed = await stuck;
          expect(failed.state).toBe('FAILED');
          expect(failed.error_log.join(' ')).toContain(
            'processing took longer than the 10 s this hub allows',
          );
          expect((await waitForState(url, next.flowId)).state).toBe('SUCCEEDED');
        },
      );
    } finally {
      remote.server.closeAllConnections();
      remote.server.close();
    }
  }, 60_000);

  it('stops the hub at SIGTERM while a revision is stuck in validation', async () => {
    const remote = await trickle();
    const dir = mkdtempSync(join(tmpdir(), 'hub-stuck-'));
    writeFileSync(join(dir, 'hub.json'), JSON.stringify({ fetchHosts: [remote.host] }));
    const hub = await startServe(['--data-dir', dir, '--config', join(dir, 'hub.json')]);
    // Run even when the test fails on its time-out, which would leave a finally unreached.
    onTestFinished(() => {
      if (hub.child.exitCode === null) hub.child.kill('SIGKILL');
      remote.server.closeAllConnections();
      remote.server.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const ada = await browserLogin(hub.url, 'ada');
    const { objectUrl } = await store(hub.url, ada, 'local.csv', Buffer.from('a\n1\n'));
    void submit(hub.url, ada, 'endless', endless(remote.host), { 'local.csv': objectUrl }).catch(
      () => undefined,
    );
    await remote.asked;
    const exited = new Promise<number | null>((resolve) => hub.child.once('exit', resolve));
    hub.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
