import { generateKeyPairSync } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { signToken } from '../../packages/hub/src/services/tokens.js';
import {
  authorizeUploads,
  browserLogin,
  EXAMPLES,
  md5Base64,
  publish,
  serviceToken,
  uploadForm,
  waitForState,
  withHub,
  type AuthorizeReply,
  storedObjects,
} from './helpers.js';

/** A GET whose path is sent exactly as written: fetch would resolve dot segments first. */
function rawGet(base: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}/`, { path, method: 'GET' }, (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on('error', reject);
    request.end();
  });
}

const hour = () => Math.floor(Date.now() / 1000) + 3600;

async function checkAuthenticated(base: string, token: string): Promise<boolean> {
  const body = (await (
    await fetch(`${base}/auth/check`, { headers: { 'Auth-Token': token } })
  ).json()) as { authenticated: boolean };
  return body.authenticated;
}

describe('tokens', () => {
  it('rejects forged, tampered, expired and malformed tokens', async () => {
    await withHub({}, async ({ url, hub }) => {
      const jwt = await browserLogin(url);
      expect(await checkAuthenticated(url, jwt)).toBe(true);
      const userid = (
        JSON.parse(Buffer.from(jwt.split('.')[1] ?? '', 'base64url').toString()) as {
          userid: string;
        }
      ).userid;
      const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      const forged = signToken({ ...hub.keys, privateKey }, { kind: 'user', userid, exp: hour() });
      const [head, , signature] = jwt.split('.');
      const tampered = `${head ?? ''}.${Buffer.from(JSON.stringify({ kind: 'user', userid: 'someone-else', exp: hour() })).toString('base64url')}.${signature ?? ''}`;
      const expired = signToken(hub.keys, {
        kind: 'user',
        userid,
        exp: Math.floor(Date.now() / 1000) - 1,
      });
      const none = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ kind: 'user', userid, exp: hour() })).toString('base64url')}.`;
      for (const token of [forged, tampered, expired, none, 'garbage', 'a.b.c']) {
        expect(await checkAuthenticated(url, token)).toBe(false);
        const authorized = (await (
          await fetch(`${url}/auth/authorize?service=rawstore`, {
            headers: { 'Auth-Token': token },
          })
        ).json()) as { token?: string };
        expect(authorized.token).toBeUndefined();
      }
    });
  });

  it('accepts a service token only for its own service', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const source = await serviceToken(url, jwt, 'source');
      const files = new Map([['a.csv', Buffer.from('a\n1\n')]]);
      expect((await authorizeUploads(url, { ...source }, files)).status).toBe(401);
      expect(
        (await authorizeUploads(url, { token: jwt, userid: source.userid }, files)).status,
      ).toBe(401);
      const rawstore = await serviceToken(url, jwt, 'rawstore');
      // A valid rawstore token for another owner: refused (403), not unauthenticated.
      expect(
        (await authorizeUploads(url, { token: rawstore.token, userid: 'not-me' }, files)).status,
      ).toBe(403);
    });
  });

  it('keeps tokens valid across a restart', async () => {
    const dataDir = join(
      await import('node:os').then((os) => os.tmpdir()),
      `hub-restart-${String(process.pid)}-${String(Date.now())}`,
    );
    const jwt = await withHub({ dataDir }, async ({ url }) => browserLogin(url));
    await withHub({ dataDir }, async ({ url }) => {
      expect(await checkAuthenticated(url, jwt)).toBe(true);
    });
  });
});

describe('single sign-on', () => {
  it.each(['https://evil.example/steal', 'http://10.0.0.1/cb', 'javascript:alert(1)', 'not a url'])(
    'refuses to redirect to %s',
    async (next) => {
      await withHub({}, async ({ url }) => {
        expect(
          (await fetch(`${url}/auth/login/local?next=${encodeURIComponent(next)}`)).status,
        ).toBe(400);
        const posted = await fetch(`${url}/auth/login/local`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            username: 'mallory',
            email: 'm@example.org',
            next,
          }).toString(),
        });
        expect(posted.status).toBe(400);
        expect(posted.headers.get('location')).toBeNull();
      });
    },
  );

  it('signs in the same development user by the same user name', async () => {
    await withHub({}, async ({ url }) => {
      const first = await browserLogin(url, 'ada', 'ada@example.org');
      const second = await browserLogin(url, 'ada', 'other@example.org');
      const idOf = async (token: string) =>
        (
          (await (
            await fetch(`${url}/auth/check`, { headers: { 'Auth-Token': token } })
          ).json()) as {
            profile: { id: string };
          }
        ).profile.id;
      expect(await idOf(first)).toBe(await idOf(second));
    });
  });
});

describe('signed uploads', () => {
  async function authorized(url: string, bytes: Buffer) {
    const jwt = await browserLogin(url);
    const rawstore = await serviceToken(url, jwt, 'rawstore');
    const reply = (await (
      await authorizeUploads(url, rawstore, new Map([['data.csv', bytes]]))
    ).json()) as AuthorizeReply;
    const entry = reply.filedata['data.csv'];
    if (!entry) throw new Error('no filedata');
    return entry;
  }

  it('stores bytes that match, and says they exist afterwards', async () => {
    await withHub({}, async ({ url, hub }) => {
      const bytes = Buffer.from('id\n1\n');
      const entry = await authorized(url, bytes);
      expect(entry.exists).toBe(false);
      expect(
        (
          await fetch(entry.upload_url, {
            method: 'POST',
            body: uploadForm(entry.upload_query, bytes),
          })
        ).status,
      ).toBe(204);
      expect(await storedObjects(hub)).toEqual([entry.upload_query.key]);
      expect((await authorized(url, bytes)).exists).toBe(true);
    });
  });

  it.each([
    [
      'bytes that do not match Content-MD5',
      (q: Record<string, string>) => q,
      Buffer.from('id\n2\n'),
      400,
    ],
    ['more bytes than declared', (q: Record<string, string>) => q, Buffer.from('id\n1\n1\n'), 400],
    [
      'a tampered policy',
      (q: Record<string, string>) => ({
        ...q,
        Policy: Buffer.from(
          JSON.stringify({
            ...(JSON.parse(Buffer.from(q.Policy ?? '', 'base64').toString()) as object),
            length: 999,
          }),
        ).toString('base64'),
      }),
      Buffer.from('id\n1\n'),
      403,
    ],
    [
      'a forged signature',
      (q: Record<string, string>) => ({ ...q, Signature: '0'.repeat(64) }),
      Buffer.from('id\n1\n'),
      403,
    ],
    [
      'a key that is not the signed one',
      (q: Record<string, string>) => ({ ...q, key: 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.csv' }),
      Buffer.from('id\n1\n'),
      403,
    ],
  ])('rejects %s and stores nothing', async (_, change, sent, status) => {
    await withHub({}, async ({ url, hub }) => {
      const entry = await authorized(url, Buffer.from('id\n1\n'));
      const response = await fetch(entry.upload_url, {
        method: 'POST',
        body: uploadForm(change(entry.upload_query), sent),
      });
      expect(response.status).toBe(status);
      expect(await storedObjects(hub)).toEqual([]);
      expect(readdirSync(hub.tmpDir).filter((name) => name.endsWith('.part'))).toEqual([]);
    });
  });

  it('rejects an expired policy', async () => {
    await withHub({}, async ({ url, hub }) => {
      const bytes = Buffer.from('id\n1\n');
      const entry = await authorized(url, bytes);
      const policy = {
        ...(JSON.parse(
          Buffer.from(entry.upload_query.Policy ?? '', 'base64').toString(),
        ) as object),
        expires: 1,
      };
      const encoded = Buffer.from(JSON.stringify(policy)).toString('base64');
      const { hmac } = await import('../../packages/hub/src/services/tokens.js');
      const query = { ...entry.upload_query, Policy: encoded, Signature: hmac(hub.keys, encoded) };
      const response = await fetch(entry.upload_url, {
        method: 'POST',
        body: uploadForm(query, bytes),
      });
      expect(response.status).toBe(403);
      expect(await response.text()).toContain('expired');
    });
  });

  it('answers a storage quota with the protocol text', async () => {
    await withHub({ maxStorageBytes: 4 }, async ({ url }) => {
      const jwt = await browserLogin(url);
      const rawstore = await serviceToken(url, jwt, 'rawstore');
      const response = await authorizeUploads(
        url,
        rawstore,
        new Map([['a.csv', Buffer.from('id\n1\n')]]),
      );
      expect(response.status).toBe(403);
      expect(await response.text()).toBe('Max storage for user exceeded plan limit (0MB)');
    });
  });

  it('answers malformed JSON and forms with a 4xx and a message, never a 500', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const rawstore = await serviceToken(url, jwt, 'rawstore');
      const source = await serviceToken(url, jwt, 'source');
      const cases: [string, string, Record<string, string>, string][] = [
        [
          '/rawstore/authorize',
          rawstore.token,
          { 'content-type': 'application/json' },
          '{"metadata":',
        ],
        ['/rawstore/authorize', rawstore.token, { 'content-type': 'application/json' }, '[1,2]'],
        [
          '/rawstore/authorize',
          rawstore.token,
          { 'content-type': 'application/json' },
          '{"metadata":{"owner":"x"},"filedata":{"a":{"length":-1,"md5":"x"}}}',
        ],
        ['/source/upload', source.token, { 'content-type': 'application/json' }, 'nope'],
        ['/source/upload', source.token, { 'content-type': 'application/json' }, '{"meta":{}}'],
        ['/rawstore/objects', '', { 'content-type': 'multipart/form-data; boundary=x' }, 'garbage'],
        ['/rawstore/objects', '', { 'content-type': 'text/plain' }, 'garbage'],
      ];
      for (const [path, token, headers, body] of cases) {
        const response = await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { ...headers, 'Auth-Token': token },
          body,
        });
        expect(response.status, `${path} ${body}`).toBeGreaterThanOrEqual(400);
        expect(response.status, `${path} ${body}`).toBeLessThan(500);
        expect(await response.text()).not.toMatch(/at \w+ \(|node:internal/);
      }
    });
  });
});

describe('paths', () => {
  it.each([
    '/ada/%2e%2e/datapackage.json',
    '/ada/..%2f..%2fkeys.json',
    '/ada/world-cities/r/..%2f..%2f..%2fkeys.json',
    '/ada/world-cities/r/%2e%2e',
    '/rawstore/objects/..%2fkeys.json',
    '/rawstore/objects/%2fetc%2fpasswd',
    '/source/..%2f..%2f/x/1',
    '/%2fetc%2fpasswd/x/datapackage.json',
    '/ada/../../keys.json',
    '/rawstore/objects/../../keys.json',
  ])('never serves a file for %s', async (path) => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      await waitForState(url, (await publish(url, jwt, join(EXAMPLES, 'cities'))).flowId);
      const response = await rawGet(url, path);
      expect([400, 404]).toContain(response.status);
      expect(response.body).not.toContain('PRIVATE KEY');
    });
  });

  it('fails a revision whose descriptor points outside its package', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const source = await serviceToken(url, jwt, 'source');
      const spec = {
        meta: { ownerid: source.userid, owner: 'ada', dataset: 'escape' },
        inputs: [
          {
            kind: 'datapackage',
            url: `${url}/rawstore/objects/x`,
            parameters: {
              descriptor: { resources: [{ name: 'k', path: '../../keys.json' }] },
              'resource-mapping': {
                '../../keys.json': `${url}/rawstore/objects/${md5Base64(Buffer.from('x'))}`,
              },
            },
          },
        ],
      };
      const reply = (await (
        await fetch(`${url}/source/upload`, {
          method: 'POST',
          headers: { 'Auth-Token': source.token },
          body: JSON.stringify(spec),
        })
      ).json()) as { flow_id: string };
      const status = await waitForState(url, reply.flow_id);
      expect(status.state).toBe('FAILED');
      expect(status.error_log.join(' ')).toContain('is not safe');
    });
  });
});

describe('ownership and quotas', () => {
  it('refuses a flow spec for another owner and a dataset over the limit', async () => {
    await withHub({ maxDatasets: 1 }, async ({ url }) => {
      const jwt = await browserLogin(url);
      await waitForState(url, (await publish(url, jwt, join(EXAMPLES, 'cities'))).flowId);
      const source = await serviceToken(url, jwt, 'source');
      const spec = (ownerid: string, dataset: string) => ({
        meta: { ownerid, owner: 'ada', dataset },
        inputs: [
          {
            kind: 'datapackage',
            url: `${url}/rawstore/objects/x`,
            parameters: { descriptor: { resources: [] }, 'resource-mapping': {} },
          },
        ],
      });
      const post = (body: unknown) =>
        fetch(`${url}/source/upload`, {
          method: 'POST',
          headers: { 'Auth-Token': source.token },
          body: JSON.stringify(body),
        });
      const foreign = await post(spec('someone-else', 'x'));
      expect(foreign.status).toBe(403);
      expect(await foreign.json()).toMatchObject({ success: false });
      const over = await post(spec(source.userid, 'second-dataset'));
      expect(over.status).toBe(403);
      expect(await over.json()).toEqual({
        success: false,
        errors: ['Max datasets for user exceeded plan limit (1)'],
      });
    });
  });

  it('serves private objects only through presigned URLs', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const bytes = Buffer.from('secret\n1\n');
      const rawstore = await serviceToken(url, jwt, 'rawstore');
      const reply = (await (
        await authorizeUploads(url, rawstore, new Map([['s.csv', bytes]]), 'private')
      ).json()) as AuthorizeReply;
      const entry = reply.filedata['s.csv'];
      if (!entry) throw new Error('no filedata');
      await fetch(entry.upload_url, {
        method: 'POST',
        body: uploadForm(entry.upload_query, bytes),
      });
      const objectUrl = `${entry.upload_url}/${entry.upload_query.key ?? ''}`;
      expect((await fetch(objectUrl)).status).toBe(404);
      expect(
        (await fetch(`${url}/rawstore/presign?ownerid=x&url=${encodeURIComponent(objectUrl)}`))
          .status,
      ).toBe(401);
      const signed = (await (
        await fetch(
          `${url}/rawstore/presign?ownerid=${rawstore.userid}&url=${encodeURIComponent(objectUrl)}`,
          { headers: { 'Auth-Token': rawstore.token } },
        )
      ).json()) as { url: string };
      expect(signed.url).toContain('signature=');
      const stranger = await serviceToken(url, await browserLogin(url, 'eve'), 'rawstore');
      expect(
        (
          await fetch(
            `${url}/rawstore/presign?ownerid=${stranger.userid}&url=${encodeURIComponent(objectUrl)}`,
            { headers: { 'Auth-Token': stranger.token } },
          )
        ).status,
      ).toBe(404);
      expect(Buffer.from(await (await fetch(signed.url)).arrayBuffer()).equals(bytes)).toBe(true);
      expect(
        (await fetch(signed.url.replace(/signature=[0-9a-f]+/, `signature=${'0'.repeat(64)}`)))
          .status,
      ).toBe(404);
    });
  });
});
