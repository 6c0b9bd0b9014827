import type { Keys } from './tokens.js';
import type { Store, User } from './store.js';
import { verifyToken, type Claims } from './tokens.js';
import type { Request } from './http.js';

export interface HubOptions {
  dataDir: string;
  /** User tokens live this many days. */
  tokenDays: number;
  maxStorageBytes: number;
  maxDatasets: number;
}

export interface Hub {
  readonly options: HubOptions;
  readonly store: Store;
  readonly keys: Keys;
  /** The origin the hub is reached at, e.g. http://127.0.0.1:8080 (no trailing slash). */
  readonly base: string;
  readonly objectsDir: string;
  readonly packagesDir: string;
  readonly tmpDir: string;
  /** Read lookups, each valid while the store's version is the one it was made at. */
  readonly lookups: Map<string, { version: number; value: unknown }>;
  /** Queues a revision for processing. */
  enqueue(ownerid: string, dataset: string, revision: number): void;
}

export const RESERVED_NAMES = new Set([
  'auth',
  'rawstore',
  'source',
  'metastore',
  'static',
  'search',
  'api',
  'favicon.ico',
  'robots.txt',
]);

export function tokenOf(request: Request): string | undefined {
  const header = request.raw.headers['auth-token'];
  if (typeof header === 'string' && header !== '') return header;
  return request.url.searchParams.get('jwt') ?? undefined;
}

/** The user a request's user token belongs to, if the token is valid. */
export function userOf(hub: Hub, request: Request): User | undefined {
  const token = tokenOf(request);
  if (!token) return undefined;
  const claims = verifyToken(hub.keys, token);
  if (claims?.kind !== 'user' || typeof claims.userid !== 'string') return undefined;
  return hub.store.userById(claims.userid);
}

/** The claims of a valid service token for one service. */
export function serviceClaims(hub: Hub, request: Request, service: string): Claims | undefined {
  const token = tokenOf(request);
  if (!token) return undefined;
  const claims = verifyToken(hub.keys, token);
  if (claims?.kind !== 'service' || claims.service !== service || typeof claims.userid !== 'string')
    return undefined;
  return claims;
}
