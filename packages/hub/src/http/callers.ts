/**
 * Who sent a request: the token it carries (a header, the old clients' `?jwt=`, or a
 * browser's session cookie), and the user or service that token stands for.
 */
import type { User } from '../engines/metadata/types.js';
import type { HubParts } from '../parts.js';
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
  if (fromQuery) return fromQuery;
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
