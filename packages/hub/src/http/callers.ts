/**
 * Who sent a request: the token it carries (a header, the old clients' `?jwt=`, or a
 * browser's session cookie), and the user or service that token stands for.
 */
import { NAMED_TOKEN } from '@data/core';
import type { NamedToken } from '../engines/metadata/named-tokens.js';
import type { User } from '../engines/metadata/types.js';
import type { HubParts } from '../parts.js';
import { SCOPES, type Caller, type Scope } from '../caller.js';
import { namedCredential } from '../services/named-tokens.js';
import { verifyToken, type Claims } from '../services/tokens.js';
import type { Request } from './request.js';
import { cookieOf, SESSION_COOKIE } from './sign-in.js';

/** Telling who sent a request takes the keys that sign tokens and the database of revocations. */
export type TokenCheck = Pick<HubParts, 'keys' | 'store'>;

/**
 * The routes where the protocol lets a token ride in the address (`?jwt=`): `/auth/check`,
 * as the old client sends it. Anywhere else an address's token counts as no token: addresses
 * end up in proxy logs, browser histories and Referer headers, and a link is not consent.
 */
const ADDRESS_TOKEN_ROUTES: ReadonlySet<string> = new Set(['/auth/check']);

/**
 * The token of a request: the `Auth-Token` header, the old clients' `?jwt=` where the
 * protocol allows it, or, for reads only, a browser's session cookie (a cookie rides along
 * on cross-site requests, so it never authorizes a change).
 */
export function tokenOf(request: Request): string | undefined {
  const header = request.raw.headers['auth-token'];
  if (typeof header === 'string' && header !== '') return header;
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
    if (typeof id === 'string' && (await hub.store.isRevoked(id))) return undefined;
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
  const claims = await liveClaims(hub, token);
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

/** The live credential a request carries (its caller, id and expiry), if any. */
export async function requestCredential(
  hub: TokenCheck,
  request: Request,
): Promise<Credential | undefined> {
  const token = tokenOf(request);
  const credential = token ? await credentialOf(hub, token) : undefined;
  if (credential) request.userId = credential.caller.userid;
  return credential;
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
  const claims = await liveClaims(hub, token);
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
  const claims = await liveClaims(hub, token);
  if (claims?.kind !== 'service' || claims.service !== service || typeof claims.userid !== 'string')
    return undefined;
  request.userId = claims.userid;
  return claims;
}
