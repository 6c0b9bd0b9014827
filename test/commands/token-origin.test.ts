/**
 * A token belongs to the exact origin of its hub. Driven as an attacker would: a listener
 * on another port of 127.0.0.1 records the headers of every request while get, info, cat,
 * diff and validate read from it, with a stored token and with DATA_TOKEN; the same commands
 * against a real hub still read its private dataset.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { mkdtempSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { tokenBelongsTo } from '../../packages/core/src/http/credential.js';
import { CredentialStore } from '../../packages/cli/src/credentials/store.js';
import { browserLogin, CITIES_DIR, publish, waitForState, withHub } from '../hub/helpers.js';

const TOKEN = 'header.payload-of-a-token-for-the-hub.signature';
const CREDENTIAL_HEADERS = ['auth-token', 'authorization', 'cookie'];

const DESCRIPTOR = {
  name: 'd',
  resources: [
    {
      name: 't',
      path: 't.csv',
      format: 'csv',
      mediatype: 'text/csv',
      schema: {
        fields: [
          { name: 'id', type: 'integer' },
          { name: 'name', type: 'string' },
        ],
      },
    },
  ],
};
const CSV = 'id,name\n1,a\n2,b\n';

interface Seen {
  path: string;
  headers: IncomingHttpHeaders;
}

/** Serves a small package at /o/d (its file also at /o/d/r/t.csv); `route` may answer first. */
async function listener(route?: (path: string, response: ServerResponse) => boolean) {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    seen.push({ path, headers: request.headers });
    if (route?.(path, response)) return;
    if (path === '/o/d/datapackage.json')
      response
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(JSON.stringify(DESCRIPTOR));
    else if (path === '/o/d/t.csv' || path === '/o/d/r/t.csv')
      response.writeHead(200, { 'Content-Type': 'text/csv' }).end(CSV);
    else response.writeHead(404).end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}`,
    port,
    seen,
    /** The requests that carried a credential. */
    credentialed: () =>
      seen.filter((request) => CREDENTIAL_HEADERS.some((name) => name in request.headers)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** `data` in this process, as a user holding a token for `api`: kept in the file, or in DATA_TOKEN. */
async function client(
  api: string,
  token: string,
  how: 'stored' | 'DATA_TOKEN',
  env: Record<string, string> = {},
) {
  const config = mkdtempSync(join(tmpdir(), 'data-token-origin-'));
  const base = { DATA_API: api, DATA_CONFIG_DIR: config, DATA_KEYCHAIN: '0', ...env };
  if (how === 'stored')
    await new CredentialStore(base).set(api, {
      token,
      profile: { id: 'ada-id', username: 'ada' },
    });
  const full = how === 'DATA_TOKEN' ? { ...base, DATA_TOKEN: token } : base;
  return (args: string[]) => runCli(args, { env: full, cwd: config });
}

/** Every command that reads what a URL names, each into a folder of its own. */
function readsOf(base: string): string[][] {
  const out = () => mkdtempSync(join(tmpdir(), 'data-token-origin-out-'));
  return [
    ['get', `${base}/o/d`, '--out', out()],
    ['get', `${base}/o/d/r/t.csv`, '--out', out()],
    ['info', `${base}/o/d`],
    ['cat', `${base}/o/d`],
    ['cat', `${base}/o/d/r/t.csv`],
    ['diff', `${base}/o/d`, `${base}/o/d`],
    ['validate', `${base}/o/d/datapackage.json`],
  ];
}

const notes = (err: string) => err.match(/^note: not sending your token/gm) ?? [];

describe('the hub token', () => {
  it('goes only to the exact origin of the API or the site', () => {
    const hub = { api: 'http://127.0.0.1:8080', site: 'https://data.example.org' };
    const cases: [string, boolean][] = [
      ['http://127.0.0.1:8080/ada/x/datapackage.json', true],
      ['https://data.example.org/ada/x/datapackage.json', true],
      ['https://DATA.example.org:443/ada/x', true],
      ['http://localhost:8080/ada/x', false],
      ['http://127.0.0.1:8081/ada/x', false],
      ['https://127.0.0.1:8080/ada/x', false],
      ['http://data.example.org/ada/x', false],
      ['https://data.example.org:8443/ada/x', false],
      ['https://data.example.org.evil.example/ada/x', false],
      ['https://evil.example/https://data.example.org/', false],
      ['https://data.example.org@evil.example/', false],
      ['file:///etc/passwd', false],
      ['not a url', false],
    ];
    for (const [url, belongs] of cases) expect(tokenBelongsTo(url, hub), url).toBe(belongs);
  });

  it('is held back from another host, and still read with by the hub, stored or in DATA_TOKEN', async () => {
    await withHub({}, async ({ url: hub }) => {
      const token = await browserLogin(hub, 'ada');
      const { flowId } = await publish(hub, token, CITIES_DIR, {
        dataset: 'secret',
        findability: 'private',
      });
      expect((await waitForState(hub, flowId, token)).state).toBe('SUCCEEDED');
      const other = await listener();
      try {
        for (const how of ['stored', 'DATA_TOKEN'] as const) {
          const data = await client(hub, token, how);
          for (const args of readsOf(other.url)) {
            const result = await data(args);
            expect({ how, args, code: result.code, err: result.err }).toMatchObject({ code: 0 });
            expect(notes(result.err), args.join(' ')).toEqual([`note: not sending your token`]);
            expect(result.err).toContain(
              `note: not sending your token to ${other.url} (it belongs to ${hub})\n`,
            );
          }
          // Each read reached the listener, none with a credential.
          expect(other.credentialed()).toEqual([]);
          const toHub = [
            ['get', 'ada/secret', '--out', mkdtempSync(join(tmpdir(), 'data-token-hub-'))],
            ['get', 'ada/secret/r/cities.csv', '--out', mkdtempSync(join(tmpdir(), 'data-t-'))],
            ['info', 'ada/secret'],
            ['cat', 'ada/secret', 'cities'],
            ['diff', 'ada/secret', 'ada/secret'],
            ['validate', `${hub}/ada/secret/datapackage.json`],
          ];
          for (const args of toHub) {
            const result = await data(args);
            expect({ how, args, code: result.code, err: result.err }).toMatchObject({ code: 0 });
            expect(notes(result.err)).toEqual([]);
          }
        }
        const paths = new Set(other.seen.map((request) => request.path));
        expect([...paths].sort()).toEqual(['/o/d/datapackage.json', '/o/d/r/t.csv', '/o/d/t.csv']);
      } finally {
        await other.close();
      }
      // Without the token the hub shows no such dataset: the reads above needed it.
      expect((await runCli(['info', 'ada/secret'], { env: { DATA_API: hub } })).code).toBe(2);
    });
  });

  it("lets diff's hint say signed in only of a dataset its token went to", async () => {
    const hub = await listener();
    const other = await listener();
    try {
      const data = await client(hub.url, TOKEN, 'stored');
      const elsewhere = await data(['diff', `${other.url}/o/gone`, `${other.url}/o/gone`]);
      expect(elsewhere.code).toBe(4);
      expect(elsewhere.err).toContain('run `data login` first');
      const onHub = await data(['diff', `${hub.url}/o/gone`, `${hub.url}/o/gone`]);
      expect(onHub.code).toBe(4);
      expect(onHub.err).toContain(
        "a private dataset shows only to its owner, an organisation's to its members too",
      );
    } finally {
      await Promise.all([hub.close(), other.close()]);
    }
  });

  it('goes to the hub of 127.0.0.1:PORT only: not to localhost:PORT, https, or another port', async () => {
    const recorder = await listener();
    try {
      const read = async (api: string, target = `${recorder.url}/o/d`, env = {}) => {
        const before = recorder.seen.length;
        const result = await (await client(api, TOKEN, 'stored', env))(['info', target]);
        expect(result.code, result.err).toBe(0);
        return { err: result.err, seen: recorder.seen.slice(before) };
      };
      // The listener as the hub itself gets the token: the checks below are not idle.
      const own = await read(recorder.url);
      expect(own.seen.map((request) => request.headers['auth-token'])).toEqual([TOKEN, TOKEN]);
      expect(notes(own.err)).toEqual([]);
      // …and as the hub's site, named apart from its API.
      const site = await read('http://127.0.0.1:9', 'o/d', { DATA_SITE: recorder.url });
      expect(site.seen.map((request) => request.headers['auth-token'])).toEqual([TOKEN, TOKEN]);
      // cat and diff sent it to the API's origin only, so a site set apart had none.
      const atSite = await client('http://127.0.0.1:9', TOKEN, 'DATA_TOKEN', {
        DATA_SITE: recorder.url,
      });
      const before = recorder.seen.length;
      for (const args of [
        ['cat', 'o/d'],
        ['diff', 'o/d', 'o/d'],
        ['get', 'o/d', '--out', mkdtempSync(join(tmpdir(), 'data-site-'))],
      ])
        expect((await atSite(args)).code, args.join(' ')).toBe(0);
      const reads = recorder.seen.slice(before);
      expect(reads.length).toBeGreaterThanOrEqual(6);
      expect(reads.filter((request) => request.headers['auth-token'] !== TOKEN)).toEqual([]);
      for (const api of [
        `http://localhost:${String(recorder.port)}`,
        `https://127.0.0.1:${String(recorder.port)}`,
        `http://127.0.0.1:${String(recorder.port + 1)}`,
      ]) {
        const { err, seen } = await read(api);
        expect(seen.length, api).toBe(2);
        expect(
          seen.filter((request) => 'auth-token' in request.headers),
          api,
        ).toEqual([]);
        expect(err).toBe(
          `note: not sending your token to ${recorder.url} (it belongs to ${api})\n`,
        );
      }
    } finally {
      await recorder.close();
    }
  });

  it("is held back from another host a hub's descriptor names for its files", async () => {
    const other = await listener();
    const hub = await listener((path, response) => {
      if (path !== '/o/x/datapackage.json') return false;
      const resources = [{ ...DESCRIPTOR.resources[0], path: `${other.url}/o/d/t.csv` }];
      response.end(JSON.stringify({ ...DESCRIPTOR, name: 'x', resources }));
      return true;
    });
    try {
      const data = await client(hub.url, TOKEN, 'stored');
      for (const args of [
        ['get', 'o/x', '--out', mkdtempSync(join(tmpdir(), 'data-x-'))],
        ['info', 'o/x'],
        ['cat', 'o/x'],
        ['diff', 'o/x', 'o/x'],
        ['validate', `${hub.url}/o/x/datapackage.json`],
      ]) {
        const result = await data(args);
        expect({ args, code: result.code, err: result.err }).toMatchObject({ code: 0 });
        expect(notes(result.err)).toHaveLength(1);
      }
      expect(hub.seen.every((request) => request.headers['auth-token'] === TOKEN)).toBe(true);
      expect(other.seen.map((request) => request.path)).toContain('/o/d/t.csv');
      expect(other.credentialed()).toEqual([]);
    } finally {
      await hub.close();
      await other.close();
    }
  });

  it('is dropped by a redirect from the hub to another origin, for the rest of the way', async () => {
    const other = await listener((path, response) => {
      // Back to the hub, which then answers.
      if (!path.startsWith('/back/')) return false;
      response.writeHead(302, { Location: `${hub.url}${path.slice('/back'.length)}` }).end();
      return true;
    });
    const hub = await listener((path, response) => {
      if (path.startsWith('/away/')) {
        response.writeHead(302, { Location: `${other.url}${path.slice('/away'.length)}` }).end();
        return true;
      }
      if (path.startsWith('/round/')) {
        response.writeHead(307, { Location: `${other.url}/back${path.slice('/round'.length)}` });
        response.end();
        return true;
      }
      return false;
    });
    try {
      for (const how of ['stored', 'DATA_TOKEN'] as const) {
        const data = await client(hub.url, TOKEN, how);
        for (const args of [
          ['info', `${hub.url}/away/o/d`],
          ['get', `${hub.url}/away/o/d/r/t.csv`, '--out', mkdtempSync(join(tmpdir(), 'data-r-'))],
          ['cat', `${hub.url}/away/o/d`],
          ['validate', `${hub.url}/away/o/d/datapackage.json`],
          ['info', `${hub.url}/round/o/d`],
        ]) {
          const result = await data(args);
          expect({ args, code: result.code, err: result.err }).toMatchObject({ code: 0 });
        }
      }
      // The hub had the token with each first request; the other origin never did, nor the
      // hub again at the end of a round trip through it.
      const first = hub.seen.filter((request) => /^\/(away|round)\//.test(request.path));
      expect(first.length).toBeGreaterThan(0);
      expect(first.every((request) => request.headers['auth-token'] === TOKEN)).toBe(true);
      expect(other.seen.length).toBeGreaterThan(0);
      expect(other.credentialed()).toEqual([]);
      const returned = hub.seen.filter((request) => request.path.startsWith('/o/d/'));
      expect(returned.map((request) => request.path)).toContain('/o/d/datapackage.json');
      expect(returned.filter((request) => 'auth-token' in request.headers)).toEqual([]);
    } finally {
      await hub.close();
      await other.close();
    }
  });
});
