/**
 * Who sent a request: the token it carries (a header, the old clients' `?jwt=`, or a
 * browser's session cookie), and the user or service that token stands for.
 */
import { NAMED_TOKEN } from '@data/core';
import type { NamedToken } from '../engines/metadata/named-tokens.js';
import type { User } from '../engines/metadata/types.js';
import type { HubParts } from '../parts.js';
import { HttpError } from '../http-error.js';
import { SCOPES, type Caller, type Scope } from '../caller.js';
import { namedCredential } from '../services/named-tokens.js';
import { verifyToken, type Claims } from '../services/tokens.js';
import type { ServerResponse } from 'node:http';
import type { Request } from './request.js';
import { cookieOf, SESSION_COOKIE } from './sign-in.js';
import { sameForAll } from '../routes.js';

/** Telling who sent a request takes the keys that sign tokens and the database of revocations. */
export type TokenCheck = Pick<HubParts, 'keys' | 'store'>;

/**
 * The routes where the protocol lets a token ride in the address (`?jwt=`): `/auth/check`,
 * as the old client sends it. Anywhere else an address's token counts as no token: addresses
 * end up in proxy logs, browser histories and Referer headers, and a link is not consent.
 */
const ADDRESS_TOKEN_ROUTES: ReadonlySet<string> = new Set(['/auth/check']);

/**
 * The token a program sends in a header: `Auth-Token`, or RFC 6750's `Authorization: Bearer`
 * when there is no `Auth-Token`. `/metrics` reads `Authorization` itself: its bearer token is
 * the operator's, not a hub credential (see headerChecked).
 */
function headerToken(request: Request): string | undefined {
  const header = request.raw.headers['auth-token'];
  if (typeof header === 'string' && header !== '') return header;
  if (request.url.pathname === '/metrics') return undefined;
  const authorization = request.raw.headers.authorization;
  if (typeof authorization !== 'string') return undefined;
  return /^Bearer +([^\s]+) *$/i.exec(authorization)?.[1];
}

/**
 * The token of a request: the `Auth-Token` header (or a bearer token), the old clients'
 * `?jwt=` where the protocol allows it, or, for reads only, a browser's session cookie (a
 * cookie rides along on cross-site requests, so it never authorizes a change).
 */
export function tokenOf(request: Request): string | undefined {
  const header = headerToken(request);
  if (header !== undefined) return header;
  const fromQuery = ADDRESS_TOKEN_ROUTES.has(request.route)
    ? request.url.searchParams.get('jwt')
    : null;
  // The old clients put only user tokens there: a named token, a long-lived secret, is never
  // taken from an address.
  if (fromQuery && !NAMED_TOKEN.test(fromQuery)) return fromQuery;
  if (request.method === 'GET' || request.method === 'HEAD')
    return cookieOf(request, SESSION_COOKIE);
  return undefined;
}

/**
 * The claims of a token this hub signed, unexpired and not revoked. A service token dies
 * with the user token it was issued from (`parent`). Revocations live in the database, so
 * every hub process sees them at once.
 */
export async function liveClaims(hub: TokenCheck, token: string): Promise<Claims | undefined> {
  const claims = verifyToken(hub.keys, token);
  if (!claims) return undefined;
  for (const id of [claims.jti, claims.parent])
    if (typeof id === 'string' && (await hub.store.remembers(id))) return undefined;
  return claims;
}

/**
 * A credential a request may carry, made live: who it acts for and what it allows (the
 * caller), the id that service tokens issued from it name as their `parent` (they die when
 * it is revoked), and when it expires (seconds since the epoch).
 */
export interface Credential {
  caller: Caller;
  id: string | undefined;
  expires: number;
  /** A named token's record (its name, for `/auth/check`). */
  named?: NamedToken | undefined;
}

/**
 * The credential of a token: a named token (`dt_…`), found by its hash; a user token of a
 * sign-in, which may do all its user may (scope `admin`); a trusted publisher's token,
 * which may publish its one dataset. Service tokens are not credentials of their own: see
 * serviceCaller. Undefined for a token that is none of these, expired or revoked.
 */
export async function credentialOf(
  hub: TokenCheck,
  token: string,
): Promise<Credential | undefined> {
  if (NAMED_TOKEN.test(token)) {
    const named = await namedCredential(hub.store, token);
    return (
      named && {
        caller: named.caller,
        id: named.record.id,
        expires: named.record.expires,
        named: named.record,
      }
    );
  }
  return credentialOfClaims(await liveClaims(hub, token));
}

/** The credential a live JWT of this hub stands for: a sign-in's or a trusted publisher's. */
function credentialOfClaims(claims: Claims | undefined): Credential | undefined {
  if (!claims || typeof claims.userid !== 'string') return undefined;
  const id = typeof claims.jti === 'string' ? claims.jti : undefined;
  const { userid, exp: expires } = claims;
  if (claims.kind === 'user')
    return { caller: { userid, scope: 'admin', datasets: [], via: 'session' }, id, expires };
  // A trusted publisher's token names its one dataset; without it, it would be unlimited.
  // Its id is its publisher's (`parent`), which removing the publisher revokes: the service
  // tokens issued from it die with the publisher too.
  if (claims.kind === 'trusted' && typeof claims.dataset === 'string')
    return {
      caller: { userid, scope: 'publish', datasets: [claims.dataset], via: 'trusted' },
      id: typeof claims.parent === 'string' ? claims.parent : id,
      expires,
    };
  return undefined;
}

/**
 * What a request's token was found to be, once a request: the gate (refuseDeadCredential)
 * and the route's handler ask the same question, and a named token is looked up, and a JWT's
 * revocation read, only once.
 */
const credentials = new WeakMap<Request, Promise<Credential | undefined>>();
const requestClaims = new WeakMap<Request, Promise<Claims | undefined>>();

/** The live claims of a request's token (a JWT of this hub's), looked up once a request. */
function claimsOf(hub: TokenCheck, request: Request, token: string): Promise<Claims | undefined> {
  let claims = requestClaims.get(request);
  if (!claims) {
    claims = liveClaims(hub, token);
    requestClaims.set(request, claims);
  }
  return claims;
}

/** The live credential a request carries (its caller, id and expiry), if any. */
export async function requestCredential(
  hub: TokenCheck,
  request: Request,
): Promise<Credential | undefined> {
  let found = credentials.get(request);
  if (!found) {
    const token = tokenOf(request);
    found = !token
      ? Promise.resolve(undefined)
      : NAMED_TOKEN.test(token)
        ? credentialOf(hub, token)
        : claimsOf(hub, request, token).then(credentialOfClaims);
    credentials.set(request, found);
  }
  const credential = await found;
  if (credential) request.userId = credential.caller.userid;
  return credential;
}

/**
 * The routes that take a credential in a header and answer a dead one themselves, in the
 * protocol's way: `/auth/check` says `authenticated: false`, `/auth/authorize` answers with
 * no token, `/auth/logout` says `revoked: false`; the other `/auth/*` routes are how a
 * client whose token died signs in again (and `/auth/public-key`, `/auth/resolve` are
 * public). `/metrics` checks the operator's own bearer token. The answers that are the same
 * for all (the health checks, the pages' fixed files: sameForAll) look at no credential.
 */
function headerChecked(request: Request): boolean {
  const [first] = request.segments;
  if (sameForAll(request.url.pathname)) return false;
  return first !== 'auth' && !(first === 'metrics' && request.segments.length === 1);
}

/** Why a dead credential is refused: nothing more, to whoever sent it, than that it is. */
export const REFUSED_TOKEN = 'the token was refused: it is unknown, revoked or expired';

/**
 * The challenge of a 401 (RFC 9110 11.6.1, RFC 6750 3): `Bearer`, with `invalid_token` when
 * the request carried a token that is not live, and no error when it carried none.
 */
export function bearerChallenge(invalid: boolean): string {
  return invalid
    ? `Bearer realm="data hub", error="invalid_token", error_description="${REFUSED_TOKEN}"`
    : 'Bearer realm="data hub"';
}

/**
 * The one gate of credentials sent in a header: a request whose `Auth-Token` (or bearer
 * token) is not live (unknown, revoked, expired, or not signed by this hub) is refused with
 * a 401 on every route but those that answer it themselves (headerChecked), as GitHub's API
 * does, where it would otherwise be answered as anonymous ("no dataset …, or it is
 * private"), which misleads. A browser's stale session cookie is not refused: the pages are
 * then shown as to anyone.
 */
export async function refuseDeadCredential(
  hub: TokenCheck,
  request: Request,
  response: ServerResponse,
): Promise<void> {
  const token = headerToken(request);
  if (token === undefined || !headerChecked(request)) return;
  if (await requestCredential(hub, request)) return;
  // A service token of any service is live here: its route says whether it is the right one.
  if (!NAMED_TOKEN.test(token) && (await claimsOf(hub, request, token)) !== undefined) return;
  response.setHeader('WWW-Authenticate', bearerChallenge(true));
  throw new HttpError(401, REFUSED_TOKEN);
}

/** Who sent a request and what its credential allows; undefined without a live credential. */
export async function callerOf(hub: TokenCheck, request: Request): Promise<Caller | undefined> {
  return (await requestCredential(hub, request))?.caller;
}

const isScope = (value: unknown): value is Scope => SCOPES.includes(value as Scope);
const VIAS: readonly unknown[] = ['session', 'token', 'trusted'];

/**
 * The caller a valid service token for one service stands for: the scope and datasets of
 * the credential it was issued from. A token issued before service tokens carried them came
 * from a sign-in.
 */
export async function serviceCaller(
  hub: TokenCheck,
  request: Request,
  service: string,
): Promise<Caller | undefined> {
  const claims = await serviceClaims(hub, request, service);
  if (!claims || typeof claims.userid !== 'string') return undefined;
  if (claims.scope === undefined)
    return { userid: claims.userid, scope: 'admin', datasets: [], via: 'session' };
  const { scope, datasets, via } = claims;
  if (!isScope(scope) || !VIAS.includes(via) || !Array.isArray(datasets)) return undefined;
  const pairs = datasets.filter((pair): pair is string => typeof pair === 'string');
  if (pairs.length !== datasets.length) return undefined;
  return { userid: claims.userid, scope, datasets: pairs, via: via as Caller['via'] };
}

/** The user a request's user token belongs to, if the token is valid. */
export async function userOf(hub: TokenCheck, request: Request): Promise<User | undefined> {
  const token = tokenOf(request);
  if (!token) return undefined;
  const claims = await claimsOf(hub, request, token);
  if (claims?.kind !== 'user' || typeof claims.userid !== 'string') return undefined;
  request.userId = claims.userid;
  return await hub.store.userById(claims.userid);
}

/** The claims of a valid service token for one service. */
export async function serviceClaims(
  hub: TokenCheck,
  request: Request,
  service: string,
): Promise<Claims | undefined> {
  const token = tokenOf(request);
  if (!token) return undefined;
  const claims = await claimsOf(hub, request, token);
  if (claims?.kind !== 'service' || claims.service !== service || typeof claims.userid !== 'string')
    return undefined;
  request.userId = claims.userid;
  return claims;
}
