import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Hub } from './context.js';
import { HttpError, redirect, sendText, type Request } from './http.js';
import type { User } from './metadata/types.js';
import { hmac, sameSecret, signToken } from './tokens.js';
import { continuePage } from './views/login.js';

const DAY = 86_400;
const CODE_MS = 60_000;
const TICKET_MS = 5 * 60_000;
export const SESSION_COOKIE = 'data_session';

/** Where a sign-in goes once the user is known, as the client asked at /auth/check. */
export interface SignInRequest {
  /** A loopback listener of a client, a page of this hub, or nothing (the hub's home). */
  next: string | null;
  /** `code`: a one-time code bound to `challenge`, never the token itself in a URL. */
  response: 'jwt' | 'code';
  challenge: string | null;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;

function isHubPage(hub: Hub, url: URL): boolean {
  return url.origin === new URL(hub.base).origin;
}

/**
 * A `next` must lead back to a client on this machine, on a port of its own, or to this hub:
 * no open redirect, and no token for a server the user did not start.
 */
export function safeNext(hub: Hub, next: string | null): URL | undefined {
  if (!next) return undefined;
  let url: URL;
  try {
    url = new URL(next);
  } catch {
    throw new HttpError(400, '"next" is not a URL');
  }
  if (isHubPage(hub, url)) return url;
  if (url.protocol !== 'http:' || !LOOPBACK.has(url.hostname) || url.port === '')
    throw new HttpError(400, '"next" must be a loopback address with a port, or this hub');
  if (url.username || url.password) throw new HttpError(400, '"next" may not carry credentials');
  return url;
}

/** Reads and checks the sign-in request carried by query or form parameters. */
export function signInRequest(hub: Hub, params: URLSearchParams): SignInRequest {
  const next = params.get('next') || null;
  safeNext(hub, next);
  const response = params.get('response') === 'code' ? 'code' : 'jwt';
  const challenge = params.get('code_challenge') || null;
  if (response === 'code' && (!challenge || !CHALLENGE.test(challenge)))
    throw new HttpError(400, '"code_challenge" must be the base64url SHA-256 of a code verifier');
  return { next, response, challenge: response === 'code' ? challenge : null };
}

export function signInParams(request: SignInRequest): URLSearchParams {
  const params = new URLSearchParams();
  if (request.next) params.set('next', request.next);
  if (request.response === 'code' && request.challenge) {
    params.set('response', 'code');
    params.set('code_challenge', request.challenge);
  }
  return params;
}

/** A user token: signed, expiring, and with an id of its own so that it can be revoked. */
export function issueUserToken(hub: Hub, user: User): string {
  const exp = Math.floor(Date.now() / 1000) + hub.options.tokenDays * DAY;
  return signToken(hub.keys, {
    kind: 'user',
    userid: user.userid,
    jti: randomBytes(16).toString('hex'),
    exp,
  });
}

/** `; Secure` behind https: a cookie of this hub then never travels in clear. */
export function secureFlag(hub: Hub): string {
  return new URL(hub.base).protocol === 'https:' ? '; Secure' : '';
}

export function sessionCookie(hub: Hub, token: string, maxAge: number): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${String(maxAge)}${secureFlag(hub)}`;
}

export function cookieOf(request: Request, name: string): string | undefined {
  const header = request.raw.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

function startSession(hub: Hub, response: ServerResponse, user: User, target: string): void {
  const token = issueUserToken(hub, user);
  response.setHeader('Set-Cookie', sessionCookie(hub, token, hub.options.tokenDays * DAY));
  redirect(response, target);
}

/** A signed, short-lived promise that `userid` may hand a token to `next`. */
function ticketFor(hub: Hub, userid: string, next: string): string {
  const body = Buffer.from(JSON.stringify({ userid, next, exp: Date.now() + TICKET_MS })).toString(
    'base64url',
  );
  return `${body}.${hmac(hub.keys, `ticket:${body}`)}`;
}

export function readTicket(hub: Hub, ticket: string): { userid: string; next: string } {
  const [body = '', signature = ''] = ticket.split('.');
  if (!sameSecret(signature, hmac(hub.keys, `ticket:${body}`)))
    throw new HttpError(400, 'this sign-in link is not valid');
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
    userid: string;
    next: string;
    exp: number;
  };
  if (claims.exp < Date.now()) throw new HttpError(400, 'this sign-in link has expired');
  return claims;
}

/**
 * Ends a sign-in whose user is known. A hub page gets a session cookie. A client gets a
 * one-time code bound to its PKCE challenge or, for old clients, the token in `jwt=`; that
 * is sent only once the user has confirmed in a page of this hub (`confirmed`), so that no
 * link can make a browser hand a token to a loopback port on its own.
 */
export async function finishSignIn(
  hub: Hub,
  response: ServerResponse,
  user: User,
  request: SignInRequest,
  confirmed: boolean,
): Promise<void> {
  const next = safeNext(hub, request.next);
  if (!next || isHubPage(hub, next))
    return startSession(hub, response, user, next ? `${next.pathname}${next.search}` : '/');
  if (request.response === 'code' && request.challenge) {
    const code = randomBytes(32).toString('base64url');
    await hub.store.saveLoginCode({
      code: codeKey(code),
      challenge: request.challenge,
      next: next.href,
      userid: user.userid,
      expires: Date.now() + CODE_MS,
    });
    next.searchParams.set('code', code);
    return redirect(response, next.href);
  }
  if (!confirmed) {
    const page = continuePage(user.username, next.host, ticketFor(hub, user.userid, next.href));
    return sendText(response, 200, page, 'text/html; charset=utf-8');
  }
  next.searchParams.set('jwt', issueUserToken(hub, user));
  redirect(response, next.href);
}

/** Codes are kept hashed: a copy of the database gives no code that could be exchanged. */
export function codeKey(code: string): string {
  return createHash('sha256').update(code).digest('hex');
}

export function challengeOf(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
