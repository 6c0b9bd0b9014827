/**
 * Sign-in lands only where it began, driven as an attacker would: crafted `next` values
 * through the development sign-in and a real OpenID provider (over HTTP and in Chromium), a
 * link that asks for a sign-in code for a loopback port of the attacker's choosing, and a
 * provider callback begun in the attacker's browser and opened in the victim's.
 */
import { createHash, randomBytes } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { gitHubProvider } from '../../packages/hub/src/engines/providers/github.js';
import type { Hub } from '../../packages/hub/src/context.js';
import { stateCookie } from '../../packages/hub/src/http/sign-in.js';
import { HAS_CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { HttpBrowser, oidcSignIn, startGitHubStandIn } from '../helpers/identity.js';
import { hiddenFields, withHub, withOidcHub } from './helpers.js';

/** `next` values a link may carry to send a signed-in browser off the hub. */
const CRAFTED = [
  '//evil.example/x',
  '/\\evil.example',
  '/%2F%2Fevil.example',
  '/%2f/evil.example',
  '/%5Cevil.example',
  '/%252F%252Fevil.example',
  '/%09/evil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '\t//evil.example',
  ' //evil.example',
  'https://evil.example',
  'http://127.0.0.1.evil.example:1/',
  'http://127.0.0.1:1\\@evil.example/',
  'http://127.0.0.1:1@evil.example/',
  'javascript:alert(document.domain)',
];

/** The same, written after the hub's own address (as a page of the hub would be). */
const AFTER_HUB = [
  '//evil.example/x',
  '/\\evil.example',
  '/\t/evil.example',
  '/%2F%2Fevil.example',
  '@evil.example/',
  '.evil.example/',
];

function craftedFor(base: string): string[] {
  return [...CRAFTED, ...AFTER_HUB.map((tail) => `${base}${tail}`)];
}

const origin = (address: string): string => new URL(address).origin;

/** A client's half of a code flow: its PKCE pair and the loopback callback it listens at. */
function codeRequest(port: number) {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const next = `http://127.0.0.1:${String(port)}/callback?state=s1`;
  const query = new URLSearchParams({ next, response: 'code', code_challenge: challenge });
  return {
    verifier,
    next,
    query: query.toString(),
    atPort: (url: URL) => url.port === String(port),
  };
}

/** Waits for the clock's next second: a provider says when a user signed in in seconds. */
async function nextSecond(): Promise<void> {
  const second = Math.floor(Date.now() / 1000);
  while (Math.floor(Date.now() / 1000) === second) await delay(1000 - (Date.now() % 1000));
}

async function exchange(base: string, code: string, verifier: string): Promise<number> {
  const response = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code, code_verifier: verifier }),
  });
  await response.text();
  return response.status;
}

async function withGitHubHub<T>(run: (base: string) => Promise<T>): Promise<T> {
  const github = await startGitHubStandIn();
  try {
    const settings = {
      clientId: 'gh-client',
      clientSecret: 'gh-secret',
      url: github.url,
      apiUrl: github.url,
    };
    return await withHub({ providers: [gitHubProvider('github', settings)] }, ({ url }) =>
      run(url),
    );
  } finally {
    await github.close();
  }
}

describe('a crafted next through the development sign-in', () => {
  it('is refused for every address that is not a path of the hub or a loopback callback', async () => {
    await withHub({}, async ({ url: base }) => {
      for (const next of craftedFor(base)) {
        const browser = new HttpBrowser();
        const offHub = (to: URL) => to.origin !== base;
        const start = `${base}/auth/login/local?${new URLSearchParams({ next }).toString()}`;
        let page = await browser.go(start, {}, offHub);
        if (page.status === 200)
          page = await browser.submit(
            page,
            { username: 'victim', email: 'v@example.org' },
            offHub,
            '/auth/login/local',
          );
        expect({ next, left: browser.visited.filter((to) => offHub(new URL(to))) }).toEqual({
          next,
          left: [],
        });
        expect({ next, status: page.status }).toEqual({ next, status: 400 });
      }
    });
  });

  it('is refused when posted with the form, with no Location', async () => {
    await withHub({}, async ({ url: base }) => {
      const shown = await fetch(`${base}/auth/login/local`);
      const fields = hiddenFields(await shown.text());
      const cookie = shown.headers
        .getSetCookie()
        .map((line) => line.split(';')[0])
        .join('; ');
      for (const next of craftedFor(base)) {
        const posted = await fetch(`${base}/auth/login/local`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            cookie,
            origin: base,
          },
          body: new URLSearchParams({
            ...fields,
            username: 'victim',
            email: 'v@example.org',
            next,
          }).toString(),
        });
        await posted.text();
        expect({ next, status: posted.status, location: posted.headers.get('location') }).toEqual({
          next,
          status: 400,
          location: null,
        });
      }
    });
  });

  it('takes a path of the hub, and sends the browser to it on the hub by its full address', async () => {
    await withHub({}, async ({ url: base }) => {
      for (const next of ['/ada/world-cities?tab=1', `${base}/ada/world-cities?tab=1`]) {
        const browser = new HttpBrowser();
        const form = await browser.go(
          `${base}/auth/login/local?${new URLSearchParams({ next }).toString()}`,
        );
        const landed = await browser.submit(
          form,
          { username: 'ada', email: 'ada@example.org' },
          undefined,
          '/auth/login/local',
        );
        expect(landed.url).toBe(`${base}/ada/world-cities?tab=1`);
      }
      const shown = await fetch(`${base}/auth/login/local?next=%2Fada`);
      const posted = await fetch(`${base}/auth/login/local`, {
        method: 'POST',
        redirect: 'manual',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          cookie: (shown.headers.getSetCookie()[0] ?? '').split(';')[0] ?? '',
          origin: base,
        },
        body: new URLSearchParams({
          ...hiddenFields(await shown.text()),
          username: 'ada',
          email: 'ada@example.org',
        }).toString(),
      });
      expect(posted.headers.get('location')).toBe(`${base}/ada`);
    });
  });
});

describe('a crafted next through an OpenID provider', () => {
  it('is refused before the provider is asked, and no sign-in leaves the hub', async () => {
    await withOidcHub(async (base, idp) => {
      for (const next of craftedFor(base)) {
        const browser = new HttpBrowser();
        const offSite = (to: URL) => to.origin !== base && to.origin !== idp;
        const start = `${base}/auth/login/idp?${new URLSearchParams({ next }).toString()}`;
        const page = await oidcSignIn(browser, start, 'victim', offSite);
        expect({ next, left: browser.visited.filter((to) => offSite(new URL(to))) }).toEqual({
          next,
          left: [],
        });
        expect({ next, status: page.status }).toEqual({ next, status: 400 });
      }
    });
  });

  it('lands on the path of the hub it was given', async () => {
    await withOidcHub(async (base) => {
      const browser = new HttpBrowser();
      const start = `${base}/auth/login/idp?next=${encodeURIComponent('/erin?x=1')}`;
      const landed = await oidcSignIn(browser, start, 'erin');
      expect(landed.url).toBe(`${base}/erin?x=1`);
    });
  });
});

describe('a link that asks for a sign-in code for a loopback port', () => {
  it('signs a fresh browser in and hands the code over, as data login does', async () => {
    await withOidcHub(async (base) => {
      const client = codeRequest(45_801);
      const browser = new HttpBrowser();
      const back = await oidcSignIn(
        browser,
        `${base}/auth/login/idp?${client.query}`,
        'erin',
        client.atPort,
      );
      const code = new URL(back.url).searchParams.get('code') ?? '';
      expect(await exchange(base, code, client.verifier)).toBe(200);
    });
  });

  it('says on the sign-in pages which port it gives access to', async () => {
    await withHub({}, async ({ url: base }) => {
      const client = codeRequest(45_802);
      const notice = 'gives the program listening at <code>127.0.0.1:45802</code>';
      const form = await new HttpBrowser().go(`${base}/auth/login/local?${client.query}`);
      expect(form.html).toContain(notice);
      const choice = await new HttpBrowser().go(`${base}/auth/login?${client.query}`);
      expect(choice.html).toContain(notice);
    });
  });

  it('asks a browser the provider already knows before any code is issued', async () => {
    await withOidcHub(async (base) => {
      const browser = new HttpBrowser();
      // The victim signed in once, as `data login` does.
      const own = codeRequest(45_803);
      await oidcSignIn(browser, `${base}/auth/login/idp?${own.query}`, 'erin', own.atPort);
      await nextSecond();
      // The attacker's link: their challenge, a port of their choosing.
      const attacker = codeRequest(45_804);
      const page = await oidcSignIn(
        browser,
        `${base}/auth/login/idp?${attacker.query}`,
        'erin',
        attacker.atPort,
      );
      expect(page.url.startsWith(`${base}/auth/callback/idp?`)).toBe(true);
      expect(page.html).toContain('Continue signing in');
      expect(page.html).toContain('<code>127.0.0.1:45804</code>');
      expect(browser.visited.filter((to) => attacker.atPort(new URL(to)))).toEqual([]);

      const fields = hiddenFields(page.html);
      const post = (form: Record<string, string>, headers: Record<string, string>) =>
        fetch(`${base}/auth/continue`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
          body: new URLSearchParams(form).toString(),
        });
      // Posted by another site, or without the page's CSRF pair: no code.
      const crossSite = await post(fields, { origin: 'https://evil.example' });
      expect(crossSite.status).toBe(403);
      expect(crossSite.headers.get('location')).toBeNull();
      const noPair = await post({ ticket: fields.ticket ?? '' }, { origin: base });
      expect(noPair.status).toBe(403);
      expect(noPair.headers.get('location')).toBeNull();

      const confirmed = await browser.submit(page, {}, attacker.atPort, '/auth/continue');
      const code = new URL(confirmed.url).searchParams.get('code') ?? '';
      expect(await exchange(base, code, attacker.verifier)).toBe(200);
    });
  });

  it('asks after a GitHub sign-in, which cannot say whether the user was asked', async () => {
    await withGitHubHub(async (base) => {
      const client = codeRequest(45_805);
      const browser = new HttpBrowser();
      const page = await browser.go(`${base}/auth/login/github?${client.query}`, {}, client.atPort);
      expect(page.html).toContain('<code>127.0.0.1:45805</code>');
      expect(browser.visited.filter((to) => client.atPort(new URL(to)))).toEqual([]);
      const confirmed = await browser.submit(page, {}, client.atPort, '/auth/continue');
      const code = new URL(confirmed.url).searchParams.get('code') ?? '';
      expect(await exchange(base, code, client.verifier)).toBe(200);
    });
  });
});

describe("a provider's callback", () => {
  /** The attacker begins a sign-in as themselves and stops at the hub's callback address. */
  async function attackersCallback(start: string, idp: string | undefined): Promise<string> {
    const attacker = new HttpBrowser();
    const atCallback = (to: URL) => to.pathname.startsWith('/auth/callback/');
    const stopped = idp
      ? await oidcSignIn(attacker, start, 'mallory', atCallback)
      : await attacker.go(start, {}, atCallback);
    expect(atCallback(new URL(stopped.url))).toBe(true);
    return stopped.url;
  }

  async function isSignedIn(base: string, browser: HttpBrowser): Promise<boolean> {
    return (await browser.go(`${base}/`)).html.includes('Sign out');
  }

  it('begun in one browser and opened in another is refused and signs nobody in', async () => {
    await withOidcHub(async (base, idp) => {
      const callback = await attackersCallback(`${base}/auth/login/idp`, idp);
      const victim = new HttpBrowser();
      const answer = await victim.go(callback);
      expect(answer.status).toBe(400);
      expect(answer.html).toContain('not started in this browser');
      expect(await isSignedIn(base, victim)).toBe(false);
      // The victim's own sign-in, begun and left at the provider, does not make it theirs.
      await victim.go(`${base}/auth/login/idp`, {}, (to) => to.origin === idp);
      expect((await victim.go(callback)).status).toBe(400);
      expect(await isSignedIn(base, victim)).toBe(false);
    });
  });

  it('begun through GitHub in one browser and opened in another is refused', async () => {
    await withGitHubHub(async (base) => {
      const callback = await attackersCallback(`${base}/auth/login/github`, undefined);
      const victim = new HttpBrowser();
      expect((await victim.go(callback)).status).toBe(400);
      expect(await isSignedIn(base, victim)).toBe(false);
    });
  });

  it('keeps the state in a short-lived cookie of the callback alone, and clears it there', async () => {
    await withOidcHub(async (base) => {
      const begun = await fetch(`${base}/auth/login/idp`, { redirect: 'manual' });
      const cookie = begun.headers
        .getSetCookie()
        .find((line) => line.startsWith('data_signin_state='));
      const state = new URL(begun.headers.get('location') ?? '').searchParams.get('state');
      expect(cookie).toBe(
        `data_signin_state=${state ?? ''}; Path=/auth/callback; HttpOnly; SameSite=Lax; Max-Age=600`,
      );
      const back = await fetch(`${base}/auth/callback/idp?code=x&state=${state ?? ''}`, {
        headers: { cookie: (cookie ?? '').split(';')[0] ?? '' },
      });
      await back.text();
      expect(back.headers.getSetCookie()).toContain(
        'data_signin_state=; Path=/auth/callback; HttpOnly; SameSite=Lax; Max-Age=0',
      );
    });
  });

  it('marks the state cookie Secure when the hub is served over https', () => {
    const hub = { base: 'https://hub.example' } as Hub;
    expect(stateCookie(hub, 'abc', 600)).toBe(
      'data_signin_state=abc; Path=/auth/callback; HttpOnly; SameSite=Lax; Max-Age=600; Secure',
    );
  });
});

describe.skipIf(!HAS_CHROMIUM)('a crafted sign-in link in a real browser', () => {
  it('ends on the hub, through the development sign-in and through the provider', async () => {
    await withOidcHub(async (base, idp) => {
      const browser = await launchChromium();
      const offSite: string[] = [];
      try {
        const page = await browser.newPage();
        // Nothing leaves this machine: any other site answers here, and is noted.
        await page.route('**/*', async (route) => {
          const to = route.request().url();
          if (origin(to) === base || origin(to) === idp) return route.continue();
          offSite.push(to);
          return route.fulfill({ status: 200, contentType: 'text/html', body: 'off the hub' });
        });
        for (const next of [
          `${base}//evil.example/x`,
          `${base}/\\evil.example`,
          '/\\evil.example',
        ]) {
          await page.goto(`${base}/auth/login/idp?${new URLSearchParams({ next }).toString()}`);
          if (origin(page.url()) === idp) {
            if ((await page.locator('input[name=login]').count()) > 0) {
              await page.fill('input[name=login]', 'erin');
              await page.fill('input[name=password]', 'anything');
              await page.click('button[type=submit]');
            }
            await page.click('button[type=submit]');
            await page.waitForURL((url) => url.origin !== idp);
          }
          expect({ next, at: origin(page.url()) }).toEqual({ next, at: base });

          await page.goto(`${base}/auth/login/local?${new URLSearchParams({ next }).toString()}`);
          if ((await page.locator('input[name=username]').count()) > 0) {
            await page.fill('input[name=username]', 'erin');
            await page.fill('input[name=email]', 'erin@example.org');
            await Promise.all([
              page.waitForURL((url) => url.pathname !== '/auth/login/local'),
              page.click('button[type=submit]'),
            ]);
          }
          expect({ next, at: origin(page.url()) }).toEqual({ next, at: base });
        }
        expect(offSite).toEqual([]);
      } finally {
        await browser.close();
      }
    });
  }, 60_000);
});
