import type { Context } from '../context.js';
import { AuthError } from '@data/core';
import { HubApi } from '../client/api.js';
import { carryingToken } from '@data/core';
import type { HttpFetch } from '@data/core';
import type { Found } from '../credentials/store.js';

/**
 * The hub's API for this run. A 401 to a request that carried the run's credential is the
 * error that says the hub refused that credential, and where it came from (refusalOf).
 */
export function hubApi(ctx: Context): HubApi {
  return new HubApi(ctx.hub().api, ctx.fetch, ctx.signal, () => refusalOf(ctx));
}

/** The credential each run picked: what a refusal of it names. */
const picked = new WeakMap<Context, Found | null>();

/**
 * The one place that picks the credential a run sends the hub: DATA_TOKEN, else the one kept
 * for the hub (the OS keychain, else the credentials file); read once a run.
 */
export async function credentialOf(ctx: Context): Promise<Found | undefined> {
  if (!picked.has(ctx)) picked.set(ctx, (await ctx.credentials.get(ctx.hub().api)) ?? null);
  return picked.get(ctx) ?? undefined;
}

/** The run sends this credential from now on (a token traded for a CI job's ID token). */
export function useCredential(ctx: Context, found: Found): Found {
  picked.set(ctx, found);
  return found;
}

/** The error of the run's credential refused by the hub; undefined when it sent none. */
export function refusalOf(ctx: Context): AuthError | undefined {
  const found = picked.get(ctx);
  return found ? refusedToken(ctx, found) : undefined;
}

/**
 * The stored or DATA_TOKEN token for the hub, or exit 4 naming both ways to get one. When
 * no token is kept for an address where nothing answers, the address is the problem: that
 * is said first (exit 3), since logging in there could not help.
 */
export async function requireToken(ctx: Context): Promise<Found> {
  const found = await credentialOf(ctx);
  if (found) return found;
  await hubApi(ctx).check();
  throw new AuthError(
    `not logged in to ${ctx.hub().api}`,
    'run `data login`, or set DATA_TOKEN (for CI)',
  );
}

const NEW_ENV_TOKEN = 'set DATA_TOKEN to a new token (`data token create` makes one)';

/** The refusals of a DATA_TOKEN, whose hint depends on a sign-in being kept (see below). */
const envRefusals = new WeakSet<AuthError>();

/**
 * A refused DATA_TOKEN's error as shown: "unset it to use your sign-in" only where a sign-in
 * is kept for the hub, else to unset it and sign in. The store is asked only here, once the
 * command has failed, never on the way of a run that sets DATA_TOKEN.
 */
export async function shownRefusal(ctx: Context, error: unknown): Promise<unknown> {
  if (!(error instanceof AuthError) || !envRefusals.has(error)) return error;
  const kept = await ctx.credentials.stored(ctx.hub().api).catch(() => undefined);
  return kept
    ? error
    : new AuthError(error.message, {
        hint: `${NEW_ENV_TOKEN}, or unset it and run \`data login\``,
        cause: error.cause,
      });
}

/**
 * The hub refused a token (unknown to it, revoked or expired): why, and what to do, in the
 * words that fit where the token came from.
 */
export function refusedToken(ctx: Context, found: Found): AuthError {
  const hub = ctx.hub().api;
  if (found.source === 'trusted')
    return new AuthError(
      `${hub} refused the token it gave for ${found.location}: it lives 15 minutes, and ends with its trusted publisher`,
      'run the job again: it trades a new ID token',
    );
  if (found.source === 'env') {
    const refused = new AuthError(
      `${hub} refused the token in DATA_TOKEN: it is unknown, revoked or expired`,
      `${NEW_ENV_TOKEN}, or unset it to use your sign-in`,
    );
    envRefusals.add(refused);
    return refused;
  }
  return new AuthError(
    `${hub} refused the token kept in ${found.location}: it is unknown, revoked or expired`,
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
  /** The request's fields as the command's options name them, for the hub's reasons. */
  words: Readonly<Record<string, string>>;
}

export function signedInDeps(
  ctx: Context,
  found: Found,
  words: Readonly<Record<string, string>> = {},
): SignedInDeps {
  return {
    api: ctx.hub().api,
    fetch: ctx.fetch,
    signal: ctx.signal,
    token: found.token,
    refused: () => refusedToken(ctx, found),
    words,
  };
}

/** The stored or DATA_TOKEN token for the hub, if any: reads of public data need none. */
export async function storedToken(ctx: Context): Promise<string | undefined> {
  return (await credentialOf(ctx))?.token;
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
  // A 401 to a request with the token: the hub refused it (not a missing or private dataset).
  const refused = () => refusalOf(ctx) ?? new AuthError(`${hub.api} refused the token`);
  return { fetch: carryingToken(fetch, hub, token, withheld, refused), token, withheld };
}

export function writeJson(ctx: Context, value: unknown): void {
  ctx.io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}
