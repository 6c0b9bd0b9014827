import type { BoundedCache } from './services/bounded-cache.js';
import type { Copies } from './services/copies/copies.js';
import type { HubMetrics } from './metrics.js';
import type { HubLog, LogFormat } from './logger.js';
import type { Keys } from './services/tokens.js';
import type { Storage } from './engines/storage/types.js';
import type { Metadata, User } from './engines/metadata/types.js';
import { verifyToken, type Claims } from './services/tokens.js';
import type { Request } from './http/request.js';
import type { Provider } from './engines/providers/types.js';
import { cookieOf, SESSION_COOKIE } from './http/sign-in.js';

export interface HubOptions {
  dataDir: string;
  /** How the log is written: text lines for a terminal, or JSON objects for a collector. */
  logFormat: LogFormat;
  /** User tokens live this many days. */
  tokenDays: number;
  maxStorageBytes: number;
  maxDatasets: number;
  /** Hosts the pipeline may fetch remote resources and schemas from: none by default. */
  fetchHosts: string[];
  limits: HubLimits;
  /**
   * Bytes the cache of derived copies (CSV, JSON, zip made when asked for) may keep in all,
   * whatever the owners' quotas: least recently read copies go first.
   */
  derivedCacheBytes: number;
}

export const DEFAULT_DERIVED_CACHE_MB = 1024;

/** What one package may ask of the hub; past these it fails with a plain reason. */
export interface HubLimits {
  /** Resources in one descriptor. */
  resources: number;
  /** Bytes of one flow spec (the descriptor is inside it) and of any JSON body. */
  specBytes: number;
  /** Heap of the worker that validates one revision, in MB. */
  processingMemoryMb: number;
  /** Characters in one row of a table. */
  rowChars: number;
  /** Cells in one row of a table. */
  columns: number;
  /** Seconds one revision's processing may take before it is stopped and fails. */
  processingSeconds: number;
}

export const DEFAULT_LIMITS: HubLimits = {
  resources: 1000,
  specBytes: 4 * 1024 * 1024,
  processingMemoryMb: 256,
  rowChars: 16 * 1024 * 1024,
  columns: 10_000,
  processingSeconds: 300,
};

export type MetricsAccess = { enabled: false } | { enabled: true; token?: string | undefined };

export interface Hub {
  readonly options: HubOptions;
  readonly store: Metadata;
  readonly keys: Keys;
  /** The origin the hub is reached at, e.g. http://127.0.0.1:8080 (no trailing slash). */
  readonly base: string;
  /** Objects, staged uploads and the files the pipeline writes: a folder or a bucket. */
  readonly storage: Storage;
  /** This process's own scratch folder, always local. */
  readonly tmpDir: string;
  /** Read lookups, each valid while the store's version is the one it was made at. */
  readonly lookups: BoundedCache<{ version: string; value: unknown }>;
  /** Identity providers the operator configured, by name. */
  readonly providers: ReadonlyMap<string, Provider>;
  /** Whether the development sign-in (a form that believes what it is told) is offered. */
  readonly devSignIn: boolean;
  /** Where problems that are not a client's fault are reported, for the operator. */
  readonly log: HubLog;
  /** Says a revision was queued (in the database): this process's idle workers look at once. */
  enqueue(): void;
  /** The derived copies, made when first asked for. */
  readonly copies: Copies;
  /** Set once the process begins to shut down: it is then no longer ready. */
  readonly lifecycle: { stopping: boolean };
  readonly metrics: HubMetrics;
  /** Who may read /metrics: nobody (off), anyone who reaches the hub, or bearers of a token. */
  readonly metricsAccess: MetricsAccess;
}

/**
 * Services and helpers take the parts of a hub they use, as `Pick<Hub, …>`, never the whole
 * of it: what one can touch is in its signature, and a test can hand it just those parts.
 * Telling who sent a request takes the keys that sign tokens and the database that knows
 * which were revoked.
 */
export type TokenCheck = Pick<Hub, 'keys' | 'store'>;

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
