import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { RESERVED_NAMES, userOf, type Hub } from './context.js';
import { HttpError, readForm, redirect, sendJson, sendText, type Request } from './http.js';
import { loginPage, loginDonePage } from './views/login.js';
import type { User } from './store.js';
import { signToken } from './tokens.js';

const DAY = 86_400;

function profile(user: User): Record<string, unknown> {
  return {
    id: user.userid,
    provider_id: `${user.provider}:${user.username}`,
    username: user.username,
    name: user.name,
    email: user.email,
    avatar_url: null,
    join_date: user.join_date,
  };
}

function loginUrl(hub: Hub, next: string | null): string {
  const url = new URL('/auth/login/local', hub.base);
  if (next) url.searchParams.set('next', next);
  return url.href;
}

/** A `next` must lead back to this machine or to the hub itself: no open redirect. */
export function safeNext(hub: Hub, next: string | null): URL | undefined {
  if (!next) return undefined;
  let url: URL;
  try {
    url = new URL(next);
  } catch {
    throw new HttpError(400, '"next" is not a URL');
  }
  const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
  if (
    !['http:', 'https:'].includes(url.protocol) ||
    (!loopback && url.origin !== new URL(hub.base).origin)
  ) {
    throw new HttpError(400, '"next" must be a loopback address or this hub');
  }
  return url;
}

export function check(hub: Hub, request: Request, response: ServerResponse): void {
  const user = userOf(hub, request);
  if (user) return sendJson(response, 200, { authenticated: true, profile: profile(user) });
  const next = request.url.searchParams.get('next');
  sendJson(response, 200, {
    authenticated: false,
    providers: { local: { url: loginUrl(hub, next) } },
  });
}

export function authorize(hub: Hub, request: Request, response: ServerResponse): void {
  const user = userOf(hub, request);
  const service = request.url.searchParams.get('service');
  // The protocol answers 200 without a token when the caller is not authenticated.
  if (!user || (service !== 'rawstore' && service !== 'source'))
    return sendJson(response, 200, { permissions: {} });
  const permissions = {
    max_storage: hub.options.maxStorageBytes,
    max_datasets: hub.options.maxDatasets,
  };
  const exp = Math.floor(Date.now() / 1000) + DAY;
  const token = signToken(hub.keys, {
    kind: 'service',
    service,
    userid: user.userid,
    permissions,
    exp,
  });
  sendJson(response, 200, { userid: user.userid, permissions, service, token });
}

export function resolve(hub: Hub, request: Request, response: ServerResponse): void {
  const username = request.url.searchParams.get('username') ?? '';
  sendJson(response, 200, { userid: hub.store.userByName(username)?.userid ?? null });
}

export function publicKey(hub: Hub, _request: Request, response: ServerResponse): void {
  sendText(response, 200, hub.keys.publicPem, 'application/x-pem-file');
}

export function loginForm(hub: Hub, request: Request, response: ServerResponse): void {
  const next = request.url.searchParams.get('next');
  safeNext(hub, next);
  sendText(response, 200, loginPage({ next, error: undefined }), 'text/html; charset=utf-8');
}

const USERNAME = /^[a-z0-9][a-z0-9_-]{0,38}$/;

export async function loginSubmit(
  hub: Hub,
  request: Request,
  response: ServerResponse,
): Promise<void> {
  const form = await readForm(request);
  const next = form.get('next') || null;
  const nextUrl = safeNext(hub, next);
  const username = (form.get('username') ?? '').trim().toLowerCase();
  const email = (form.get('email') ?? '').trim().toLowerCase();
  const fail = (error: string): void =>
    sendText(response, 400, loginPage({ next, error }), 'text/html; charset=utf-8');
  if (!USERNAME.test(username) || RESERVED_NAMES.has(username))
    return fail('Choose a user name of lower-case letters, digits, "-" and "_".');
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) return fail('Enter a valid e-mail address.');
  const userid = createHash('md5').update(email).digest('hex');
  const taken = hub.store.userByName(username);
  if (taken && taken.userid !== userid) return fail(`The user name "${username}" is taken.`);
  const user = hub.store.upsertUser({
    userid,
    username,
    email,
    name: username,
    provider: 'local',
    join_date: new Date().toISOString(),
  });
  const exp = Math.floor(Date.now() / 1000) + hub.options.tokenDays * DAY;
  const token = signToken(hub.keys, { kind: 'user', userid: user.userid, exp });
  if (!nextUrl)
    return sendText(response, 200, loginDonePage(user.username), 'text/html; charset=utf-8');
  nextUrl.searchParams.set('jwt', token);
  redirect(response, nextUrl.href);
}

export function isReserved(name: string): boolean {
  return RESERVED_NAMES.has(name);
}
