import type { Context } from '../context.js';
import { AuthError } from '@data/core';
import { HubApi } from '../client/api.js';
import { carryingToken } from '@data/core';
import type { HttpFetch } from '@data/core';
import type { Found } from '../credentials/store.js';

export function hubApi(ctx: Context): HubApi {
  return new HubApi(ctx.hub().api, ctx.fetch, ctx.signal);
}

/**
 * The stored or DATA_TOKEN token for the hub, or exit 4 naming both ways to get one. When
 * no token is kept for an address where nothing answers, the address is the problem: that
 * is said first (exit 3), since logging in there could not help.
 */
export async function requireToken(ctx: Context): Promise<Found> {
  const found = await ctx.credentials.get(ctx.hub().api);
  if (found) return found;
  await hubApi(ctx).check();
  throw new AuthError(
    `not logged in to ${ctx.hub().api}`,
    'run `data login`, or set DATA_TOKEN (for CI)',
  );
}

/** The hub refused a token: why, in the words that fit where the token came from. */
export function refusedToken(ctx: Context, found: Found): AuthError {
  const hub = ctx.hub().api;
  if (found.source === 'trusted')
    return new AuthError(`${hub} refused the token it gave for ${found.location}`);
  if (found.source === 'env')
    return new AuthError(
      `${hub} refused the token in DATA_TOKEN`,
      'DATA_TOKEN takes the place of any login: set it to a valid token for this hub, or unset it',
    );
  return new AuthError(
    `${hub} no longer accepts the token kept in ${found.location} (it expired or was revoked)`,
    'run `data login` again',
  );
}

/**
 * What the client's signed-in use cases (client/orgs.ts, tokens.ts, publishers.ts, and
 * publish's `--owner`) take: the hub's API, the fetch, the token found, and the error that
 * says the hub refused it.
 */
export interface SignedInDeps {
  api: string;
  fetch: HttpFetch;
  signal: AbortSignal;
  token: string;
  refused: () => Error;
}

export function signedInDeps(ctx: Context, found: Found): SignedInDeps {
  return {
    api: ctx.hub().api,
    fetch: ctx.fetch,
    signal: ctx.signal,
    token: found.token,
    refused: () => refusedToken(ctx, found),
  };
}

/** The stored or DATA_TOKEN token for the hub, if any: reads of public data need none. */
export async function storedToken(ctx: Context): Promise<string | undefined> {
  return (await ctx.credentials.get(ctx.hub().api))?.token;
}

/** The runs that have said already that a token was held back: it is said once a run. */
const noted = new WeakSet<Context>();

/**
 * A fetch of the client's (ctx.fetch, or ctx.download) that carries the stored or DATA_TOKEN
 * token to the hub's API and site and to nothing else (client/credential.ts). Once a run,
 * the first request a token is held back from is told on stderr, so that a private dataset
 * at another address does not just answer 404 unexplained.
 */
export async function hubReader(
  ctx: Context,
  fetch: HttpFetch = ctx.fetch,
): Promise<{
  fetch: HttpFetch;
  token: string | undefined;
  /** Says that a token was held back from an origin: for a worker's requests. */
  withheld: (origin: string) => void;
}> {
  const token = await storedToken(ctx);
  const hub = ctx.hub();
  const owner = hub.site === hub.api ? hub.api : `${hub.api} and ${hub.site}`;
  const withheld = (origin: string): void => {
    if (noted.has(ctx)) return;
    noted.add(ctx);
    ctx.io.stderr.write(`note: not sending your token to ${origin} (it belongs to ${owner})\n`);
  };
  return { fetch: carryingToken(fetch, hub, token, withheld), token, withheld };
}

export function writeJson(ctx: Context, value: unknown): void {
  ctx.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
