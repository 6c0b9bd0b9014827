/**
 * Names and addresses tried as an attacker would: a token in an address, a user named after
 * a route, a dataset named as another in another case, and 404s that would tell a private
 * dataset from a missing one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { V2_PROFILE } from '../../packages/core/src/validator/reading.js';
import { isReservedName, RESERVED_NAMES, usernameFrom } from '../../packages/hub/src/names.js';
import { firstLiteralSegment, ROUTES } from '../../packages/hub/src/routes.js';
import { HttpBrowser, oidcSignIn } from '../helpers/identity.js';
import {
  browserLogin,
  CITIES_DIR,
  publish,
  serviceToken,
  submitSignInForm,
  tempDir,
  waitForState,
  withHub,
  withOidcHub,
} from './helpers.js';

async function authenticated(url: string, init: RequestInit = {}): Promise<boolean> {
  const body = (await (await fetch(url, init)).json()) as { authenticated: boolean };
  return body.authenticated;
}

/** A flow spec that passes the hub's checks: enough to make (or be refused) a dataset. */
function minimalSpec(ownerid: string, dataset: string) {
  return {
    meta: { version: 1, ownerid, owner: 'ada', dataset, findability: 'published' },
    inputs: [
      {
        kind: 'datapackage',
        url: 'http://127.0.0.1:9/datapackage.json',
        parameters: { descriptor: { name: 'x', resources: [] }, 'resource-mapping': {} },
      },
    ],
  };
}

async function sourceUpload(url: string, token: string, spec: unknown) {
  const response = await fetch(`${url}/source/upload`, {
    method: 'POST',
    headers: { 'Auth-Token': token, 'content-type': 'application/json' },
    body: JSON.stringify(spec),
  });
  return {
    status: response.status,
    body: (await response.json()) as { success: boolean; errors: string[] },
  };
}

/** Ada's world-cities, public, and the same package as her private "secret"; her user id. */
async function publishPublicAndSecret(url: string, ada: string): Promise<string> {
  const { userid } = await publish(url, ada, CITIES_DIR);
  await waitForState(url, `${userid}/world-cities/1`);
  await waitForState(
    url,
    (await publish(url, ada, CITIES_DIR, { dataset: 'secret', findability: 'private' })).flowId,
    ada,
  );
  return userid;
}

describe('a token in an address', () => {
  it('counts as no token anywhere but /auth/check', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const userid = await publishPublicAndSecret(url, ada);
      const inAddress = `jwt=${encodeURIComponent(ada)}`;

      expect(await authenticated(`${url}/auth/check?${inAddress}`)).toBe(true);
      expect(await authenticated(`${url}/auth/check?next=http://127.0.0.1:3000&${inAddress}`)).toBe(
        true,
      );

      const deleted = await fetch(`${url}/source/${userid}/world-cities?${inAddress}`, {
        method: 'DELETE',
      });
      expect(deleted.status).toBe(401);
      expect((await fetch(`${url}/ada/world-cities/datapackage.json`)).status).toBe(200);

      const authorized = (await (
        await fetch(`${url}/auth/authorize?service=source&${inAddress}`)
      ).json()) as { token?: string };
      expect(authorized.token).toBeUndefined();

      const source = await serviceToken(url, ada, 'source');
      const uploaded = await fetch(`${url}/source/upload?jwt=${source.token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(minimalSpec(userid, 'by-address')),
      });
      expect(uploaded.status).toBe(401);
      const rawstore = await serviceToken(url, ada, 'rawstore');
      const stored = await fetch(`${url}/rawstore/authorize?jwt=${rawstore.token}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ metadata: { owner: userid }, filedata: {} }),
      });
      expect(stored.status).toBe(401);

      for (const path of [
        '/ada/secret',
        '/ada/secret/datapackage.json',
        '/ada/secret/r/cities.csv',
        `/source/${userid}/secret/revisions`,
        `/source/${userid}/secret/1`,
      ]) {
        expect((await fetch(`${url}${path}?${inAddress}`)).status, path).toBe(404);
        expect((await fetch(`${url}${path}`, { headers: { 'Auth-Token': ada } })).status).toBe(200);
      }
      const listing = (await (
        await fetch(`${url}/metastore/search?owner=ada&${inAddress}`)
      ).json()) as { results: { name: string }[] };
      expect(listing.results.map((result) => result.name)).toEqual(['world-cities']);
    });
  });
});

describe('reserved names', () => {
  it('are every first path segment of a route, and the words kept besides', () => {
    const segments = ROUTES.map(firstLiteralSegment).filter((segment) => segment !== undefined);
    expect(segments).toEqual(expect.arrayContaining(['healthz', 'readyz', 'metrics', 'auth']));
    for (const segment of [...segments, 'search', 'api', 'robots.txt']) {
      expect(RESERVED_NAMES.has(segment), segment).toBe(true);
      expect(isReservedName(segment.toUpperCase())).toBe(true);
      expect(usernameFrom(segment)).not.toBe(segment);
    }
    expect(firstLiteralSegment('GET /:owner/:dataset')).toBeUndefined();
    expect(isReservedName('ada')).toBe(false);
  });

  it('are refused by the development sign-in', async () => {
    await withHub({}, async ({ url }) => {
      for (const name of ['healthz', 'readyz', 'metrics']) {
        const check = (await (await fetch(`${url}/auth/check`)).json()) as {
          providers: { local: { url: string } };
        };
        await expect(
          submitSignInForm(check.providers.local.url, name, `${name}@example.org`),
        ).rejects.toThrow(/ 400 /);
        const resolved = (await (await fetch(`${url}/auth/resolve?username=${name}`)).json()) as {
          userid: string | null;
        };
        expect(resolved.userid).toBeNull();
      }
    });
  });

  it('give a provider user called after a route another name', async () => {
    await withOidcHub(async (url) => {
      for (const login of ['healthz', 'readyz', 'metrics']) {
        const verifier = randomBytes(32).toString('base64url');
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        const next = 'http://127.0.0.1:45998/callback?state=s1';
        const query = new URLSearchParams({
          next,
          response: 'code',
          code_challenge: challenge,
        });
        const check = (await (await fetch(`${url}/auth/check?${query.toString()}`)).json()) as {
          providers: { idp: { url: string } };
        };
        const back = await oidcSignIn(
          new HttpBrowser(),
          check.providers.idp.url,
          login,
          (address) => address.port === '45998',
        );
        const code = new URL(back.url).searchParams.get('code') ?? '';
        const traded = (await (
          await fetch(`${url}/auth/token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ code, code_verifier: verifier }),
          })
        ).json()) as { token: string };
        const profile = (
          (await (
            await fetch(`${url}/auth/check`, { headers: { 'Auth-Token': traded.token } })
          ).json()) as { profile: { username: string } }
        ).profile;
        expect(profile.username).not.toBe(login);
        expect(profile.username.startsWith(login)).toBe(true);
        expect(isReservedName(profile.username)).toBe(false);
        // The name it got is a user's address like any other.
        expect((await fetch(`${url}/${profile.username}`)).status).toBe(200);
      }
    });
  });
});

describe('names whatever their case', () => {
  it('refuses a new dataset named as one of the owner in another case, naming it', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const { userid } = await publish(url, ada, CITIES_DIR, { dataset: 'cities' });
      const source = (await serviceToken(url, ada, 'source')).token;
      for (const name of ['Cities', 'CITIES', 'citieS']) {
        const refused = await sourceUpload(url, source, minimalSpec(userid, name));
        expect(refused.status).toBe(409);
        expect(refused.body.success).toBe(false);
        expect(refused.body.errors.join(' ')).toContain('"cities"');
      }
      await expect(publish(url, ada, CITIES_DIR, { dataset: 'Cities' })).rejects.toThrow(
        /you already have a dataset "cities"/,
      );
      // Its own name, in its own case, publishes as before; another user may take the name.
      expect((await sourceUpload(url, source, minimalSpec(userid, 'cities'))).status).toBe(200);
      const bob = await browserLogin(url, 'bob');
      const bobs = await serviceToken(url, bob, 'source');
      expect((await sourceUpload(url, bobs.token, minimalSpec(bobs.userid, 'Cities'))).status).toBe(
        200,
      );
    });
  });

  it('is what data shows: publish names the existing dataset, info follows the redirect', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      await waitForState(url, (await publish(url, ada, CITIES_DIR, { dataset: 'cities' })).flowId);
      const config = mkdtempSync(join(tmpdir(), 'data-names-'));
      const data = (args: string[]) =>
        runCli(args, {
          env: { DATA_API: url, DATA_CONFIG_DIR: config, DATA_TOKEN: ada },
          fetch: globalThis.fetch,
        });
      // Data Package v2 lets a name have capitals (v1 refuses them before anything is sent).
      const dir = mkdtempSync(join(tmpdir(), 'data-names-csv-'));
      copyFileSync(join(CITIES_DIR, 'data/cities.csv'), join(dir, 'cities.csv'));
      writeFileSync(
        join(dir, 'datapackage.json'),
        JSON.stringify({
          $schema: V2_PROFILE,
          name: 'Cities',
          resources: [{ name: 'cities', path: 'cities.csv' }],
        }),
      );
      const refused = await data(['publish', dir]);
      expect(refused.code).not.toBe(0);
      expect(refused.err).toContain('409 you already have a dataset "cities"');
      const info = await data(['info', 'ada/Cities']);
      expect(info.code).toBe(0);
      expect(info.out).toContain('World cities and their countries');
    });
  });

  it('lets only one of two racing publications differing in case make the dataset', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const { token, userid } = await serviceToken(url, ada, 'source');
      for (const round of [1, 2, 3]) {
        const names = [`race${String(round)}`, `RACE${String(round)}`, `Race${String(round)}`];
        const answers = await Promise.all(
          names.map((name) => sourceUpload(url, token, minimalSpec(userid, name))),
        );
        expect(answers.map((answer) => answer.status).sort()).toEqual([200, 409, 409]);
      }
    });
  });

  it('redirects a read in another case to the name as it is, keeping the path and query', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      await waitForState(url, (await publish(url, ada, CITIES_DIR, { dataset: 'cities' })).flowId);
      const moved = async (path: string, init: RequestInit = {}) => {
        const response = await fetch(`${url}${path}`, { ...init, redirect: 'manual' });
        await response.arrayBuffer();
        return { status: response.status, location: response.headers.get('location') };
      };
      const cases: [string, string][] = [
        ['/ada/Cities', '/ada/cities'],
        ['/ada/CITIES/r/cities.csv?x=%2F', '/ada/cities/r/cities.csv?x=%2F'],
        ['/ADA/cities/v/1/r/cities.csv?x=%2F', '/ada/cities/v/1/r/cities.csv?x=%2F'],
        ['/ADA/cities/datapackage.json', '/ada/cities/datapackage.json'],
        ['/Ada/cities/v/1', '/ada/cities/v/1'],
        ['/Ada', '/ada'],
        ['/ada/Cities/diff/1..1', '/ada/cities/diff/1..1'],
        ['/ada/Cities/data/cities.csv', '/ada/cities/data/cities.csv'],
      ];
      for (const [path, location] of cases) {
        expect(await moved(path), path).toEqual({ status: 301, location });
        expect(await moved(path, { method: 'HEAD' }), path).toEqual({ status: 301, location });
      }
      const followed = await fetch(`${url}/ada/Cities/r/cities.csv`);
      expect(followed.status).toBe(200);
      expect(followed.url).toBe(`${url}/ada/cities/r/cities.csv`);
      // A revision's own address names its dataset in its case: no other is looked for.
      for (const path of ['/ada/CITIES/v/1/r/cities.csv', '/Ada/Cities/v/1', '/ada/Cities/v/1/'])
        expect((await moved(path)).status, path).toBe(404);
      // Nothing of that name in any case, and names as they are, are not redirected.
      expect((await moved('/ada/Towns')).status).toBe(404);
      expect((await moved('/ada/cities/r/none.csv')).status).toBe(404);
      expect((await moved('/Nobody/cities')).status).toBe(404);
    });
  });

  it('keeps an older hub that holds names differing in case only, and chooses among them', async () => {
    const dataDir = tempDir();
    const ownerid = await withHub({ dataDir }, async ({ url, hub }) => {
      const ada = await browserLogin(url, 'ada');
      const { userid } = await publish(url, ada, CITIES_DIR, { dataset: 'cities' });
      await waitForState(url, `${userid}/cities/1`);
      // As a hub from before the rule could hold it: a second dataset of the name in capitals.
      await hub.store.importRows('datasets', [
        {
          ownerid: userid,
          name: 'CITIES',
          findability: 'private',
          title: null,
          description: null,
          published_revision: null,
          modified: new Date().toISOString(),
          bytes: null,
          row_count: null,
          license: null,
        },
      ]);
      return userid;
    });
    await withHub({ dataDir }, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const source = (await serviceToken(url, ada, 'source')).token;
      // Each keeps its own name; a third case is refused naming the first by name.
      expect((await sourceUpload(url, source, minimalSpec(ownerid, 'CITIES'))).status).toBe(200);
      expect((await sourceUpload(url, source, minimalSpec(ownerid, 'cities'))).status).toBe(200);
      const refused = await sourceUpload(url, source, minimalSpec(ownerid, 'Cities'));
      expect(refused.status).toBe(409);
      expect(refused.body.errors.join(' ')).toContain('"CITIES"');
      // A reader who may not see the private one is sent to the one it may see.
      const read = await fetch(`${url}/ada/Cities/datapackage.json`, { redirect: 'manual' });
      expect(read.headers.get('location')).toBe('/ada/cities/datapackage.json');
      const asAda = await fetch(`${url}/ada/Cities/datapackage.json`, {
        redirect: 'manual',
        headers: { 'Auth-Token': ada },
      });
      expect(asAda.headers.get('location')).toBe('/ada/CITIES/datapackage.json');
    });
  });
});

/** Everything of an answer a reader could tell apart, but its date and request id. */
async function answer(url: string, init: RequestInit = {}) {
  const response = await fetch(url, { ...init, redirect: 'manual' });
  const headers = [...response.headers.entries()].filter(
    ([name]) => name !== 'date' && name !== 'x-request-id',
  );
  return { status: response.status, headers, body: await response.text() };
}

describe('what a reader may not see', () => {
  it('is answered byte for byte as what does not exist, on every read route', async () => {
    await withHub({}, async ({ url }) => {
      const ada = await browserLogin(url, 'ada');
      const bob = await browserLogin(url, 'bob');
      const userid = await publishPublicAndSecret(url, ada);
      const paths = [
        '/ada/secret',
        '/ada/Secret',
        '/Ada/secret',
        '/ada/secret/v/1',
        '/ada/secret/diff/1..1',
        '/ada/secret/datapackage.json',
        '/ada/secret/validation_report.json',
        '/ada/secret/r/cities.csv',
        '/ada/secret/r/0.csv',
        '/ada/secret/r/cities.json',
        '/ada/secret/r/cities.parquet',
        '/ada/secret/r/world-cities_zip.zip',
        '/ada/secret/data/cities.csv',
        '/ada/secret/datapackage.json?v=1',
        '/ada/secret/v/1/datapackage.json',
        '/ada/secret/v/1/validation_report.json',
        '/ada/secret/v/1/r/cities.csv',
        '/ada/secret/v/1/data/cities.csv',
        `/source/${userid}/secret/revisions`,
        `/source/${userid}/secret/1`,
        `/source/${userid}/secret/latest`,
        '/metastore/search?q=secret',
        '/metastore/search?owner=ada',
        '/ada',
        '/?q=secret',
      ];
      const readers: [string, RequestInit][] = [
        ['anyone', {}],
        ['bob', { headers: { 'Auth-Token': bob } }],
        ['a page', { headers: { accept: 'text/html' } }],
        ['bob in a page', { headers: { accept: 'text/html', cookie: `data_session=${bob}` } }],
        ['anyone, HEAD', { method: 'HEAD' }],
      ];
      const everything = async () => {
        const seen: Record<string, unknown> = {};
        for (const path of paths)
          for (const [who, init] of readers)
            seen[`${who} ${path}`] = await answer(url + path, init);
        seen['bob DELETE'] = await answer(`${url}/source/${userid}/secret`, {
          method: 'DELETE',
          headers: { 'Auth-Token': bob },
        });
        return seen;
      };
      const hidden = await everything();
      expect((await answer(`${url}/ada/secret`, { headers: { 'Auth-Token': ada } })).status).toBe(
        200,
      );
      const removed = await fetch(`${url}/source/${userid}/secret`, {
        method: 'DELETE',
        headers: { 'Auth-Token': ada },
      });
      expect(removed.status).toBe(200);
      const missing = await everything();
      for (const key of Object.keys(hidden)) expect(hidden[key], key).toEqual(missing[key]);
    });
  });
});
