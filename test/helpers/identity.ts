/**
 * Identity providers for the tests: a real OpenID Provider (oidc-provider, a certified
 * implementation) and a stand-in of GitHub's OAuth endpoints, both on loopback; and a
 * browser played over HTTP, with cookies, that follows redirects and submits forms.
 */
import { randomBytes, createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { hiddenFields } from '../hub/protocol.js';

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
}

export interface RunningProvider {
  url: string;
  /** Registers the client once the hub's callback address is known. */
  register(redirectUri: string): void;
  close(): Promise<void>;
}

/**
 * oidc-provider with its development interactions: any login name signs in, as the
 * subject of that name, after a consent page. Clients: id "hub", secret "hub-secret".
 */
export async function startOidcProvider(): Promise<RunningProvider> {
  let handle: ((request: IncomingMessage, response: ServerResponse) => void) | undefined;
  const server = createServer((request, response) => {
    if (handle) handle(request, response);
    else response.writeHead(503).end();
  });
  const url = await listen(server);
  return {
    url,
    register(redirectUri: string) {
      const provider = new Provider(url, {
        clients: [
          {
            client_id: 'hub',
            client_secret: 'hub-secret',
            redirect_uris: [redirectUri],
            grant_types: ['authorization_code'],
            response_types: ['code'],
          },
        ],
        pkce: { required: () => true },
        claims: { openid: ['sub'], profile: ['preferred_username', 'name'], email: ['email'] },
        findAccount: (_context, sub) => ({
          accountId: sub,
          claims: () => ({
            sub,
            preferred_username: sub,
            name: `${sub} (OIDC)`,
            email: `${sub}@idp.example`,
          }),
        }),
        features: { devInteractions: { enabled: true } },
      });
      const callback = provider.callback();
      handle = (request, response) => void callback(request, response);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface GitHubStandIn extends RunningProvider {
  /** The users it knows, by login; `id` is GitHub's numeric user id. */
  users: Map<string, { id: number; name: string; email: string }>;
  /** The login the next authorization signs in as. */
  signInAs: string;
}

/**
 * GitHub's OAuth endpoints as GitHub documents them, for the login the test picks: the
 * authorize page approves at once, the token endpoint checks the client, the code and the
 * PKCE verifier, and /user answers for the token.
 */
export async function startGitHubStandIn(): Promise<GitHubStandIn> {
  const codes = new Map<string, { login: string; challenge: string; redirect: string }>();
  const tokens = new Map<string, string>();
  const state: GitHubStandIn = {
    url: '',
    users: new Map([
      ['octocat', { id: 583231, name: 'The Octocat', email: 'octocat@github.example' }],
    ]),
    signInAs: 'octocat',
    register: () => undefined,
    close: () => Promise.resolve(),
  };
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', state.url);
    const json = (status: number, body: unknown) =>
      response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
    if (url.pathname === '/login/oauth/authorize') {
      const code = randomBytes(10).toString('hex');
      const redirect = url.searchParams.get('redirect_uri') ?? '';
      codes.set(code, {
        login: state.signInAs,
        challenge: url.searchParams.get('code_challenge') ?? '',
        redirect,
      });
      const back = new URL(redirect);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      return response.writeHead(302, { Location: back.href }).end();
    }
    if (url.pathname === '/login/oauth/access_token' && request.method === 'POST') {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        const form = new URLSearchParams(body);
        const basic = Buffer.from(
          (request.headers.authorization ?? '').replace(/^Basic /, ''),
          'base64',
        )
          .toString()
          .split(':')
          .map(decodeURIComponent);
        const id = form.get('client_id') ?? basic[0];
        const secret = form.get('client_secret') ?? basic[1];
        const code = codes.get(form.get('code') ?? '');
        codes.delete(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        const challenge = createHash('sha256').update(verifier).digest('base64url');
        if (id !== 'gh-client' || secret !== 'gh-secret' || !code || code.challenge !== challenge)
          return json(200, { error: 'bad_verification_code' });
        const token = `gho_${randomBytes(12).toString('hex')}`;
        tokens.set(token, code.login);
        json(200, { access_token: token, token_type: 'bearer', scope: 'read:user,user:email' });
      });
      return;
    }
    if (url.pathname === '/user') {
      const login = tokens.get((request.headers.authorization ?? '').replace(/^Bearer /i, ''));
      const user = login ? state.users.get(login) : undefined;
      if (!login || !user) return json(401, { message: 'Bad credentials' });
      return json(200, { login, ...user });
    }
    json(404, { message: 'Not Found' });
  });
  state.url = await listen(server);
  state.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return state;
}

/** A browser played over HTTP: a cookie jar per host, redirects followed one by one. */
export class HttpBrowser {
  private readonly jar = new Map<string, Map<string, string>>();
  /** Every address visited, in order. */
  readonly visited: string[] = [];

  private cookieHeader(url: URL): string {
    return [...(this.jar.get(url.host) ?? new Map<string, string>())]
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
  }

  private keep(url: URL, response: Response): void {
    const cookies = this.jar.get(url.host) ?? new Map<string, string>();
    for (const line of response.headers.getSetCookie()) {
      const [pair = ''] = line.split(';');
      const at = pair.indexOf('=');
      const expired = /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line);
      if (expired) cookies.delete(pair.slice(0, at));
      else cookies.set(pair.slice(0, at), pair.slice(at + 1));
    }
    this.jar.set(url.host, cookies);
  }

  /** Requests, following redirects until a page answers or `stopAt` matches an address. */
  async go(
    address: string,
    init: {
      method?: string;
      form?: Record<string, string>;
      origin?: string;
      /** Sent in the place of Origin, as a browser may. */
      referer?: string;
    } = {},
    stopAt?: (url: URL) => boolean,
  ): Promise<{ url: string; status: number; html: string }> {
    let url = new URL(address);
    let method = init.method ?? 'GET';
    let body = init.form ? new URLSearchParams(init.form).toString() : undefined;
    for (let hop = 0; hop < 20; hop++) {
      this.visited.push(url.href);
      if (stopAt?.(url)) return { url: url.href, status: 0, html: '' };
      const headers: Record<string, string> = { cookie: this.cookieHeader(url) };
      if (body !== undefined) {
        headers['content-type'] = 'application/x-www-form-urlencoded';
        if (init.referer) headers.referer = init.referer;
        else headers.origin = init.origin ?? url.origin;
      }
      const response = await fetch(url, { method, headers, body, redirect: 'manual' });
      this.keep(url, response);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.text();
        url = new URL(location, url);
        method = 'GET';
        body = undefined;
        continue;
      }
      return { url: url.href, status: response.status, html: await response.text() };
    }
    throw new Error('too many redirects');
  }

  /** Submits the page's first form (or the one whose action contains `action`). */
  submit(
    page: { url: string; html: string },
    fields: Record<string, string> = {},
    stopAt?: (url: URL) => boolean,
    action?: string,
  ): Promise<{ url: string; status: number; html: string }> {
    const forms = [...page.html.matchAll(/<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/g)];
    const form = forms.find((match) => !action || (match[1] ?? '').includes(action));
    if (!form) throw new Error(`no form on ${page.url}: ${page.html.slice(0, 300)}`);
    const values = hiddenFields(form[2] ?? '');
    const target = new URL((form[1] ?? '').replace(/&amp;/g, '&'), page.url).href;
    return this.go(target, { method: 'POST', form: { ...values, ...fields } }, stopAt);
  }
}

/** Signs in at the OIDC provider's development pages as `login`, consenting. */
export async function oidcSignIn(
  browser: HttpBrowser,
  start: string,
  login: string,
  stopAt?: (url: URL) => boolean,
): Promise<{ url: string; status: number; html: string }> {
  const loginPage = await browser.go(start, {}, stopAt);
  if (!loginPage.html.includes('name="login"')) return loginPage;
  const consent = await browser.submit(loginPage, { login, password: 'any' }, stopAt);
  if (!consent.html.includes('name="prompt" value="consent"')) return consent;
  return browser.submit(consent, {}, stopAt);
}
