import { createHash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import type { Hub } from '../context.js';
import { HttpError } from '../http-error.js';
import { HTML, redirect, sendText, type Request } from './request.js';
import type { User } from '../engines/metadata/types.js';
import { hmac, sameSecret, signToken } from '../services/tokens.js';
import { continuePage } from '../views/login.js';

const DAY = 86_400;
const CODE_MS = 60_000;
const TICKET_MS = 5 * 60_000;
export const SESSION_COOKIE = 'data_session';
const CSRF_COOKIE = 'data_csrf';

/** Where a sign-in goes once the user is known, as the client asked at /auth/check. */
export interface SignInRequest {
  /** A path on this hub, the loopback callback of a client on this machine, or nothing (home). */
  next: string | null;
  /** `code`: a one-time code bound to `challenge`, never the token itself in a URL. */
  response: 'jwt' | 'code';
  challenge: string | null;
}

/** Where a `next` leads: a page of this hub, or a program on this computer. */
export type Destination = { page: string } | { program: URL };

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);
const CHALLENGE = /^[A-Za-z0-9_-]{43,128}$/;
/** Printable ASCII but the backslash: what a path of a URL is written with. */
const URL_TEXT = /^[\x21-\x5b\x5d-\x7e]*$/;

/** A backslash or a control character: what a browser reads as `/` or drops from an address. */
function bent(text: string): boolean {
  for (const char of text) {
    const code = char.charCodeAt(0);
    if (code < 0x20 || code === 0x7f || char === '\\') return true;
  }
  return false;
}

/**
 * A path of this hub: one leading `/`, then never `/` or `\` (which a browser reads as the
 * start of another host), and no backslash or control character anywhere, as written and
 * as every percent-decoding of it reads (`%2F`, `%5C`, `%09`, and `%252F` decoded twice).
 */
function hubPath(next: string): string | undefined {
  if (!URL_TEXT.test(next)) return undefined;
  let text = next;
  for (let round = 0; round < 4; round++) {
    if (!/^\/(?![/\\])/.test(text) || bent(text)) return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(text);
    } catch {
      return undefined;
    }
    if (decoded === text) return next;
    text = decoded;
  }
  return undefined;
}

/**
 * The callback of a client on this machine: plain http to a loopback host, with a port, no
 * credentials, and written exactly as a URL parser reads it, so that no browser reads it as
 * another address.
 */
function programCallback(next: string, hubOrigin: string): URL | undefined {
  if (!URL_TEXT.test(next) || !next.startsWith('http://')) return undefined;
  let url: URL;
  try {
    url = new URL(next);
  } catch {
    return undefined;
  }
  const exact = url.href === next || url.href === `${next}/`;
  if (!exact || !LOOPBACK.has(url.hostname) || url.port === '' || url.origin === hubOrigin)
    return undefined;
  if (url.username || url.password || url.hash) return undefined;
  return url;
}

/**
 * A `next` must be a page of this hub (a path, or this hub's address and a path) or a client
 * on this machine, on a port of its own: no open redirect, and no token for a server the
 * user did not start.
 */
export function destinationOf(hub: Hub, next: string | null): Destination | undefined {
  if (!next) return undefined;
  const origin = new URL(hub.base).origin;
  const path = hubPath(next.startsWith(`${origin}/`) ? next.slice(origin.length) : next);
  if (path !== undefined) return { page: path };
  const program = programCallback(next, origin);
  if (program) return { program };
  throw new HttpError(
    400,
    '"next" must be a path on this hub, or a loopback address with a port (http://127.0.0.1:<port>/…)',
  );
}

/** The absolute address of a page of this hub: never a protocol-relative `//host`. */
function pageAddress(hub: Hub, destination: { page: string } | undefined): string {
  return `${new URL(hub.base).origin}${destination?.page ?? '/'}`;
}

/** Reads and checks the sign-in request carried by query or form parameters. */
export function signInRequest(hub: Hub, params: URLSearchParams): SignInRequest {
  const next = params.get('next') || null;
  destinationOf(hub, next);
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

/** Adds a cookie to those the answer already sets (a `setHeader` would drop them). */
export function addCookie(response: ServerResponse, cookie: string): void {
  const set = response.getHeader('Set-Cookie');
  const cookies = Array.isArray(set) ? set : typeof set === 'string' ? [set] : [];
  response.setHeader('Set-Cookie', [...cookies, cookie]);
}

export function cookieOf(request: Request, name: string): string | undefined {
  const header = request.raw.headers.cookie ?? '';
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/** The CSRF value of a form of this hub, whose other half is a cookie of this browser. */
export function csrfPair(hub: Hub, response: ServerResponse): string {
  const nonce = randomBytes(16).toString('hex');
  addCookie(
    response,
    `${CSRF_COOKIE}=${nonce}; Path=/auth; HttpOnly; SameSite=Strict; Max-Age=3600${secureFlag(hub)}`,
  );
  return hmac(hub.keys, `csrf:${nonce}`);
}

/**
 * A browser's form post that another site made is refused, by what browsers say of it:
 * Sec-Fetch-Site, else Origin (`null` included), else the Referer's origin (a browser may send
 * only that). A post that says none of them is left to the form's CSRF pair.
 */
export function sameOriginOnly(hub: Hub, request: Request): void {
  const { headers } = request.raw;
  const site = headers['sec-fetch-site'];
  const ours = new URL(hub.base).origin;
  const from =
    typeof headers.origin === 'string'
      ? headers.origin
      : typeof headers.referer === 'string'
        ? (URL.parse(headers.referer)?.origin ?? 'null')
        : undefined;
  if (
    (typeof site === 'string' && site !== 'same-origin' && site !== 'none') ||
    (from !== undefined && from !== ours)
  )
    throw new HttpError(403, 'this form may only be sent from the hub itself', true);
}

/** A form post must come from this hub's own page: same origin, and its CSRF pair. */
export function checkFormOrigin(hub: Hub, request: Request, form: URLSearchParams): void {
  sameOriginOnly(hub, request);
  const nonce = cookieOf(request, CSRF_COOKIE) ?? '';
  if (!nonce || !sameSecret(form.get('csrf') ?? '', hmac(hub.keys, `csrf:${nonce}`)))
    throw new HttpError(403, 'this form has expired: open the sign-in page again', true);
}

function startSession(hub: Hub, response: ServerResponse, user: User, target: string): void {
  const token = issueUserToken(hub, user);
  addCookie(response, sessionCookie(hub, token, hub.options.tokenDays * DAY));
  redirect(response, target);
}

const STATE_COOKIE = 'data_signin_state';

/**
 * Binds a provider sign-in to the browser that began it (RFC 9700, 4.7): its `state` in a
 * cookie sent only to the callback, which the callback must find equal to the `state` the
 * provider sends back. `maxAge` 0 clears it.
 */
export function stateCookie(hub: Hub, state: string, maxAge: number): string {
  return `${STATE_COOKIE}=${state}; Path=/auth/callback; HttpOnly; SameSite=Lax; Max-Age=${String(maxAge)}${secureFlag(hub)}`;
}

/** Whether this browser began the sign-in whose `state` the provider sent back. */
export function begunHere(request: Request, state: string): boolean {
  const kept = cookieOf(request, STATE_COOKIE) ?? '';
  return kept !== '' && state !== '' && sameSecret(kept, state);
}

/** A signed, short-lived promise that `userid` may finish `request`, once confirmed. */
function ticketFor(hub: Hub, userid: string, request: SignInRequest): string {
  const claims = { userid, request, exp: Date.now() + TICKET_MS };
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${body}.${hmac(hub.keys, `ticket:${body}`)}`;
}

export function readTicket(hub: Hub, ticket: string): { userid: string; request: SignInRequest } {
  const [body = '', signature = ''] = ticket.split('.');
  if (!sameSecret(signature, hmac(hub.keys, `ticket:${body}`)))
    throw new HttpError(400, 'this sign-in link is not valid', true);
  const claims = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as {
    userid: string;
    request: SignInRequest;
    exp: number;
  };
  if (claims.exp < Date.now()) throw new HttpError(400, 'this sign-in link has expired', true);
  return claims;
}

/**
 * Ends a sign-in whose user is known. A hub page gets a session cookie. A client gets a
 * one-time code bound to its PKCE challenge or, for old clients, the token in `jwt=`; either
 * goes to a loopback port only once the user has said so in a page of this hub that names
 * the port (`confirmed`: the sign-in form, or the page this shows), so that no link can make
 * a browser with a session hand a sign-in to a program on its own.
 */
export async function finishSignIn(
  hub: Hub,
  response: ServerResponse,
  user: User,
  request: SignInRequest,
  confirmed: boolean,
): Promise<void> {
  const destination = destinationOf(hub, request.next);
  if (!destination || 'page' in destination)
    return startSession(hub, response, user, pageAddress(hub, destination));
  const next = new URL(destination.program);
  if (!confirmed) {
    const ticket = ticketFor(hub, user.userid, request);
    const page = continuePage(user.username, next.host, ticket, csrfPair(hub, response));
    return sendText(response, 200, page, HTML);
  }
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
