/**
 * Single sign-on over real HTTP: a real OpenID provider, a stand-in of GitHub, the one-time
 * code that keeps tokens out of URLs, revocation, and where the development sign-in is offered.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { gitHubProvider } from '../../packages/hub/src/engines/providers/github.js';
import { HubRefused } from '../../packages/hub/src/refused.js';
import { isLoopback, startHub } from '../../packages/hub/src/server.js';
import { HttpBrowser, oidcSignIn, startGitHubStandIn } from '../helpers/identity.js';
import { hiddenFields } from './protocol.js';
import {
  browserLogin,
  CITIES_DIR,
  publish,
  serviceToken,
  tempDir,
  waitForState,
  withHub,
  withOidcHub,
} from './helpers.js';

interface Check {
  authenticated: boolean;
  profile?: { id: string; username: string; name: string; email: string; provider_id: string };
  providers?: Record<string, { url: string }>;
}

async function check(base: string, token?: string, query = ''): Promise<Check> {
  const response = await fetch(`${base}/auth/check${query}`, {
    headers: token ? { 'Auth-Token': token } : {},
  });
  return (await response.json()) as Check;
}

/** What a client does: a PKCE pair and a loopback `next` that nothing needs to answer. */
function clientRequest(port = 45_999) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const next = `http://127.0.0.1:${String(port)}/callback?state=s1`;
  const query = `?${new URLSearchParams({ next, response: 'code', code_challenge: challenge }).toString()}`;
  return { verifier, challenge, next, query, isNext: (url: URL) => url.port === String(port) };
}

async function exchange(base: string, code: string, verifier: string) {
  const response = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, code_verifier: verifier }),
  });
  return {
    status: response.status,
    cacheControl: response.headers.get('cache-control'),
    body: (await response.json()) as { token?: string },
  };
}

/** A hub signing in through a real OpenID provider, and a browser of one's own for it. */
const withOidcBrowser = <T>(run: (base: string, browser: HttpBrowser) => Promise<T>): Promise<T> =>
  withOidcHub((base) => run(base, new HttpBrowser()));

describe('OpenID Connect', () => {
  it('signs a client in through the provider and returns a one-time code bound to its challenge', async () => {
    await withOidcBrowser(async (base, browser) => {
      const client = clientRequest();
      const providers = (await check(base, undefined, client.query)).providers ?? {};
      expect(Object.keys(providers).sort()).toEqual(['idp', 'local']);
      const back = await oidcSignIn(browser, providers.idp?.url ?? '', 'alice', client.isNext);
      const returned = new URL(back.url);
      expect(returned.searchParams.get('state')).toBe('s1');
      expect(returned.searchParams.has('jwt')).toBe(false);
      const code = returned.searchParams.get('code') ?? '';
      expect((await exchange(base, code, randomBytes(32).toString('base64url'))).status).toBe(400);
      // A refused attempt used the code up: single use, whoever tries.
      expect((await exchange(base, code, client.verifier)).status).toBe(400);

      // A browser of its own: one the provider knows would be asked first (sign-in-redirects).
      const again = await oidcSignIn(
        new HttpBrowser(),
        (await check(base, undefined, client.query)).providers?.idp?.url ?? '',
        'alice',
        client.isNext,
      );
      const second = new URL(again.url).searchParams.get('code') ?? '';
      const traded = await exchange(base, second, client.verifier);
      expect(traded.status).toBe(200);
      // An answer that carries a credential is kept by no cache (RFC 6749 5.1).
      expect(traded.cacheControl).toBe('no-store');
      const signedIn = await check(base, traded.body.token);
      expect(signedIn.profile).toMatchObject({
        username: 'alice',
        name: 'alice (OIDC)',
        email: 'alice@idp.example',
        provider_id: 'idp',
      });
      expect(signedIn.profile?.id).toMatch(/^[0-9a-f]{32}$/);
      expect((await exchange(base, second, client.verifier)).status).toBe(400);
    });
  });

  it('keeps a user by provider and subject, and makes a taken user name unique', async () => {
    await withOidcHub(async (base) => {
      await browserLogin(base, 'alice');
      const client = clientRequest();
      const signIn = async () => {
        const url = (await check(base, undefined, client.query)).providers?.idp?.url ?? '';
        const browser = new HttpBrowser();
        const code =
          new URL((await oidcSignIn(browser, url, 'alice', client.isNext)).url).searchParams.get(
            'code',
          ) ?? '';
        return (await check(base, (await exchange(base, code, client.verifier)).body.token))
          .profile;
      };
      const first = await signIn();
      expect(first?.username).toBe('alice-2');
      expect((await signIn())?.id).toBe(first?.id);
    });
  });

  it('asks before handing an old client the token itself', async () => {
    await withOidcBrowser(async (base, browser) => {
      const next = 'http://127.0.0.1:45998/';
      const url =
        (await check(base, undefined, `?next=${encodeURIComponent(next)}`)).providers?.idp?.url ??
        '';
      const page = await oidcSignIn(browser, url, 'bob', (to) => to.port === '45998');
      expect(page.html).toContain('Continue signing in');
      expect(page.html).toContain('127.0.0.1:45998');
      expect(browser.visited.some((address) => address.includes('jwt='))).toBe(false);
      const forged = await browser.go(`${base}/auth/continue`, {
        method: 'POST',
        form: { ticket: 'e30.0000' },
      });
      expect(forged.status).toBe(400);
      // A real ticket, posted by another site (to sign the victim's program in as someone else).
      const ticket = /name="ticket" value="([^"]+)"/.exec(page.html)?.[1] ?? '';
      const crossSite = await browser.go(`${base}/auth/continue`, {
        method: 'POST',
        form: { ticket },
        origin: 'https://evil.example',
      });
      expect(crossSite.status).toBe(403);
      const confirmed = await browser.submit(
        page,
        {},
        (to) => to.port === '45998',
        '/auth/continue',
      );
      const jwt = new URL(confirmed.url).searchParams.get('jwt') ?? '';
      expect((await check(base, jwt)).profile?.username).toBe('bob');
    });
  });

  it('refuses a callback whose state it did not issue', async () => {
    await withOidcHub(async (base) => {
      const response = await fetch(`${base}/auth/callback/idp?code=x&state=made-up`);
      expect(response.status).toBe(400);
    });
  });

  it('gives a browser a session on the hub pages, and signs it out', async () => {
    await withOidcBrowser(async (base, browser) => {
      const home = await oidcSignIn(browser, `${base}/auth/login/idp`, 'carol');
      expect(home.url).toBe(`${base}/`);
      expect(home.html).toContain('Sign out carol');
      const form = await browser.go(`${base}/auth/logout`);
      // The form's own values, sent by another site whose browser says only its Referer.
      const values = hiddenFields(form.html);
      for (const referer of ['https://evil.example/', 'not an address']) {
        const crossSite = await browser.go(`${base}/auth/logout`, {
          method: 'POST',
          form: values,
          referer,
        });
        expect(crossSite.status).toBe(403);
      }
      expect((await browser.go(`${base}/`)).html).toContain('Sign out carol');
      const after = await browser.submit(form, {}, undefined, '/auth/logout');
      expect(after.html).toContain('Sign in');
      expect(after.html).not.toContain('Sign out carol');
    });
  });
});

describe('GitHub', () => {
  it('signs in by GitHub user id, with the login as user name', async () => {
    const github = await startGitHubStandIn();
    try {
      await withHub(
        {
          providers: [
            gitHubProvider('github', {
              clientId: 'gh-client',
              clientSecret: 'gh-secret',
              url: github.url,
              apiUrl: github.url,
            }),
          ],
        },
        async ({ url: base }) => {
          const client = clientRequest();
          const browser = new HttpBrowser();
          const start = (await check(base, undefined, client.query)).providers?.github?.url ?? '';
          // GitHub cannot say whether it asked the user: the hub asks before a code goes out.
          const asked = await browser.go(start, {}, client.isNext);
          const back = await browser.submit(asked, {}, client.isNext, '/auth/continue');
          const code = new URL(back.url).searchParams.get('code') ?? '';
          const token = (await exchange(base, code, client.verifier)).body.token;
          const profile = (await check(base, token)).profile;
          expect(profile).toMatchObject({
            username: 'octocat',
            name: 'The Octocat',
            provider_id: 'github',
          });
          // A renamed GitHub account is the same user.
          github.users.set('octocat-renamed', { id: 583231, name: 'Renamed', email: '' });
          github.signInAs = 'octocat-renamed';
          const again = await browser.submit(
            await browser.go(
              (await check(base, undefined, client.query)).providers?.github?.url ?? '',
              {},
              client.isNext,
            ),
            {},
            client.isNext,
            '/auth/continue',
          );
          const second = (
            await exchange(base, new URL(again.url).searchParams.get('code') ?? '', client.verifier)
          ).body.token;
          expect((await check(base, second)).profile?.id).toBe(profile?.id);
        },
      );
    } finally {
      await github.close();
    }
  });
});

describe('revocation', () => {
  it('refuses a logged-out token and the service tokens issued from it', async () => {
    await withHub({}, async ({ url }) => {
      const jwt = await browserLogin(url);
      const rawstore = await serviceToken(url, jwt, 'rawstore');
      const logout = await fetch(`${url}/auth/logout`, {
        method: 'POST',
        headers: { 'Auth-Token': jwt },
      });
      expect(await logout.json()).toEqual({ revoked: true });
      expect((await check(url, jwt)).authenticated).toBe(false);
      expect((await serviceToken(url, jwt, 'rawstore')).token).toBeUndefined();
      const authorize = await fetch(`${url}/rawstore/authorize`, {
        method: 'POST',
        headers: { 'Auth-Token': rawstore.token },
        body: JSON.stringify({ metadata: { owner: rawstore.userid }, filedata: {} }),
      });
      expect(authorize.status).toBe(401);
    });
  });

  it('is seen by a second hub process on the same data', async () => {
    const dataDir = tempDir();
    await withHub({ dataDir }, async (first) => {
      await withHub({ dataDir }, async (second) => {
        const jwt = await browserLogin(first.url);
        expect((await check(second.url, jwt)).authenticated).toBe(true);
        await fetch(`${first.url}/auth/logout`, { method: 'POST', headers: { 'Auth-Token': jwt } });
        expect((await check(second.url, jwt)).authenticated).toBe(false);
      });
    });
  });
});

describe('the development sign-in', () => {
  it('is offered on loopback only, unless the operator says so', async () => {
    expect(['127.0.0.1', '127.8.9.1', '::1', 'localhost'].every(isLoopback)).toBe(true);
    expect(['0.0.0.0', '::', '10.0.0.1', 'hub.example.org'].some(isLoopback)).toBe(false);
    await expect(
      startHub({ dataDir: tempDir(), host: '0.0.0.0', log: () => undefined }),
    ).rejects.toThrow(HubRefused);
    const dataDir = tempDir();
    await expect(startHub({ dataDir, devSignIn: false, log: () => undefined })).rejects.toThrow(
      /needs a sign-in provider/,
    );
    // Refused before the storage and the database were opened: neither was left open or made.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('is not offered, nor answered, when turned off beside a provider', async () => {
    await withOidcHub(
      async (url) => {
        expect(Object.keys((await check(url)).providers ?? {})).toEqual(['idp']);
        expect((await fetch(`${url}/auth/login/local`)).status).toBe(404);
        const posted = await fetch(`${url}/auth/login/local`, {
          method: 'POST',
          body: new URLSearchParams({ username: 'x', email: 'x@example.org' }),
        });
        expect(posted.status).toBe(404);
      },
      { devSignIn: false },
    );
  });

  it('says on its page that it is for development', async () => {
    await withHub({}, async ({ url }) => {
      expect(await (await fetch(`${url}/auth/login/local`)).text()).toContain(
        'Development sign-in',
      );
    });
  });

  it('is called by its name on the page that lists the ways to sign in', async () => {
    await withOidcHub(async (url) => {
      const html = await (await fetch(`${url}/auth/login`)).text();
      const links = [...html.matchAll(/<a class="button" href="([^"]+)">([^<]+)<\/a>/g)].map(
        (link) => [new URL(link[1]?.replaceAll('&amp;', '&') ?? '', url).pathname, link[2]],
      );
      expect(links).toEqual([
        ['/auth/login/idp', 'Sign in with idp'],
        ['/auth/login/local', 'Development sign-in'],
      ]);
      expect(html).not.toContain('Sign in with local');
      // data login, asked to choose, names it too.
      const login = await runCli(['login'], { env: { DATA_API: url } });
      expect(login.code).toBe(2);
      expect(login.err).toContain('providers: idp, local (the development sign-in)');
    });
  });
});

describe('publishing as an OIDC user', () => {
  it('publishes and reads back under the provider user name', async () => {
    await withOidcBrowser(async (base, browser) => {
      const client = clientRequest();
      const url = (await check(base, undefined, client.query)).providers?.idp?.url ?? '';
      const code =
        new URL((await oidcSignIn(browser, url, 'dora', client.isNext)).url).searchParams.get(
          'code',
        ) ?? '';
      const token = (await exchange(base, code, client.verifier)).body.token ?? '';
      const { flowId } = await publish(base, token, CITIES_DIR);
      expect((await waitForState(base, flowId, token)).state).toBe('SUCCEEDED');
      expect((await fetch(`${base}/dora/world-cities/datapackage.json`)).status).toBe(200);
    });
  });
});
