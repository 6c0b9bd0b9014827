/**
 * Ours: `/api/tokens`, a user's named tokens (`data token create|list|revoke`), and the page
 * that lists and revokes them (`/settings/tokens`). Only a credential that may do all its
 * user may (a sign-in, or an `admin` token limited to no dataset) manages tokens.
 */
import type { ServerResponse } from 'node:http';
import { DATASET_NAME, sameTokenName, tokenNameProblem, type TokenRecord } from '@data/core';
import type { Hub } from '../context.js';
import { HttpError } from '../http-error.js';
import { may } from '../services/access.js';
import { SCOPES, type Caller, type Scope } from '../caller.js';
import {
  DEFAULT_TOKEN_DAYS,
  keepNamedToken,
  managingRefusal,
  prepareNamedToken,
  revokeNamedToken,
  shownRecord,
  TOKEN_DAYS_LIMIT,
  TokenCapReached,
} from '../services/named-tokens.js';
import { hmac, sameSecret } from '../services/tokens.js';
import { tokensPage } from '../views/tokens.js';
import { liveClaims, requestCredential, type Credential } from './callers.js';
import {
  HTML,
  isObject,
  readForm,
  readJson,
  redirect,
  sendCredential,
  sendJson,
  sendText,
  type Request,
} from './request.js';
import { cookieOf, sameOriginOnly, SESSION_COOKIE } from './sign-in.js';

/** The caller's credential, when it may manage its tokens; else the refusal that says why not. */
async function managing(hub: Hub, request: Request): Promise<Credential> {
  const credential = await requestCredential(hub, request);
  if (!credential) throw new HttpError(401, 'sign in (data login) to manage your tokens');
  const refusal = managingRefusal(credential.caller, 'tokens');
  if (refusal) throw new HttpError(403, refusal);
  return credential;
}

/** The caller, when it may manage its tokens. */
async function manager(hub: Hub, request: Request): Promise<Caller> {
  return (await managing(hub, request)).caller;
}

const isScope = (value: unknown): value is Scope => SCOPES.includes(value as Scope);

/** A value as JSON shows it, but a number too large for one (1e400 is read as Infinity). */
const shown = (value: unknown): string =>
  typeof value === 'number' && !Number.isFinite(value)
    ? 'a number too large'
    : (JSON.stringify(value) ?? String(value));

/** Days the token lives: the maker's choice, from 1 to the hub's maximum (at most ten years). */
function daysOf(hub: Hub, value: unknown): number {
  const most = Math.min(hub.options.maxTokenDays, TOKEN_DAYS_LIMIT);
  if (value === undefined || value === null) return Math.min(DEFAULT_TOKEN_DAYS, most);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > most)
    throw new HttpError(
      400,
      `a token lives from 1 to ${String(most)} days on this hub ("expires_days" was ${shown(value)})`,
    );
  return value;
}

/**
 * The `ownerid/dataset` pairs of the datasets asked (`owner/dataset` by owner names), each
 * one the caller may publish to: a token cannot be given what its maker may not do.
 */
async function datasetsOf(hub: Hub, caller: Caller, value: unknown): Promise<string[]> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((pair) => typeof pair === 'string'))
    throw new HttpError(400, '"datasets" must be a list of "owner/dataset"');
  const most = hub.options.caps.maxDatasetsPerToken;
  if (value.length > most)
    throw new HttpError(400, `a token names at most ${String(most)} datasets on this hub`);
  const pairs = new Set<string>();
  for (const pair of value) {
    const [owner = '', dataset = '', ...more] = pair.split('/');
    if (!owner || !DATASET_NAME.test(dataset) || more.length > 0)
      throw new HttpError(400, `${JSON.stringify(pair)} is not "owner/dataset"`);
    // Owner names are kept in lower case; a dataset that exists, as it is named.
    const ownerid = (await hub.store.userByName(owner.toLowerCase()))?.userid;
    if (!ownerid || !(await may(hub.store.organisations, caller, 'publish', ownerid, dataset)))
      throw new HttpError(
        403,
        `you may not publish to ${pair}, so no token of yours may: name a dataset you may publish`,
      );
    const [existing] = await hub.store.datasetsInAnyCase(ownerid, dataset);
    pairs.add(`${ownerid}/${existing?.name ?? dataset}`);
  }
  return [...pairs];
}

/** `POST /api/tokens` `{name, scope, datasets, expires_days}`: the token, this once, and its record. */
export async function create(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const credential = await managing(hub, request);
  const { caller } = credential;
  const body = await readJson(request, 64 * 1024);
  if (!isObject(body)) throw new HttpError(400, 'the body must be a JSON object');
  const { name, scope } = body;
  if (typeof name !== 'string') throw new HttpError(400, '"name" must be a string');
  const problem = tokenNameProblem(name);
  if (problem) throw new HttpError(400, problem);
  if (!isScope(scope)) throw new HttpError(400, '"scope" must be read, publish or admin');
  const days = daysOf(hub, body.expires_days);
  const datasets = await datasetsOf(hub, caller, body.datasets);
  if (scope === 'read' && datasets.length > 0)
    throw new HttpError(
      400,
      'a read token reads what you may read: datasets limit publishing, for publish and admin tokens',
    );
  const prepared = prepareNamedToken({
    userid: caller.userid,
    name,
    scope,
    datasets,
    days,
    // Made with a named token: no longer-lived than it (a sign-in makes tokens for CI, to
    // outlive it; a stolen admin token must not).
    notAfter: caller.via === 'token' ? credential.expires : undefined,
  });
  // The answer is made before the token is kept: nothing is kept that is then refused.
  const record = await shownRecord(hub.store, prepared.record);
  // The cap (live tokens) is counted as the token is kept, in one transaction: racing
  // requests never pass it.
  const most = hub.options.caps.maxTokensPerUser;
  const made = await keepNamedToken(hub.store, prepared, most).catch((error: unknown) => {
    if (!(error instanceof TokenCapReached)) throw error;
    throw new HttpError(
      403,
      `you have ${String(most)} live tokens, the most this hub allows: revoke one first`,
    );
  });
  if (!made) throw new HttpError(409, await nameTaken(hub, caller.userid, name));
  sendCredential(response, 201, { token: made.token, record });
}

/**
 * Why a token's name is taken: by a live token, or by one that expired (listed for a while);
 * names are one in any case, so the token that holds it is named as it is kept.
 */
async function nameTaken(hub: Hub, userid: string, name: string): Promise<string> {
  const kept = (await hub.store.namedTokens.list(userid)).find((token) =>
    sameTokenName(token.name, name),
  );
  const held = JSON.stringify(kept?.name ?? name);
  const expired = kept !== undefined && kept.expires * 1000 <= Date.now();
  return expired
    ? `your token named ${held} expired on ${new Date(kept.expires * 1000).toISOString().slice(0, 10)}: revoke it to use its name again, or choose another name`
    : `you already have a token named ${held}${kept && kept.name !== name ? ' (names are the same in any case)' : ''}: revoke it first, or choose another name`;
}

/** `GET /api/tokens`: the caller's tokens' records, never a token nor its hash. */
export async function list(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const caller = await manager(hub, request);
  sendJson(response, 200, await records(hub, caller.userid));
}

async function records(hub: Hub, userid: string): Promise<TokenRecord[]> {
  const kept = await hub.store.namedTokens.list(userid);
  return Promise.all(kept.map((record) => shownRecord(hub.store, record)));
}

/** `DELETE /api/tokens/:name`: revoked at once, on every hub process. */
export async function revoke(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  name: string,
): Promise<void> {
  const caller = await manager(hub, request);
  if (!(await revokeNamedToken(hub.store, caller.userid, name)))
    throw new HttpError(404, `you have no token named ${JSON.stringify(name)}`);
  sendJson(response, 200, { revoked: name });
}

/** The signed-in browser's user and the CSRF value of its session, if it is signed in. */
async function session(
  hub: Hub,
  request: Request,
): Promise<{ userid: string; csrf: string } | undefined> {
  const token = cookieOf(request, SESSION_COOKIE);
  const claims = token ? await liveClaims(hub, token) : undefined;
  if (claims?.kind !== 'user' || typeof claims.jti !== 'string') return undefined;
  if (typeof claims.userid !== 'string') return undefined;
  request.userId = claims.userid;
  return { userid: claims.userid, csrf: hmac(hub.keys, `tokens:${claims.jti}`) };
}

/** `GET /settings/tokens`: the signed-in user's tokens, each with a button that revokes it. */
export async function page(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const signedIn = await session(hub, request);
  if (!signedIn) return redirect(response, '/auth/login');
  const user = await hub.store.userById(signedIn.userid);
  if (!user) return redirect(response, '/auth/login');
  const revoked = request.url.searchParams.has('revoked');
  response.setHeader('Cache-Control', 'no-store');
  sendText(
    response,
    200,
    tokensPage({
      viewer: user.username,
      tokens: await records(hub, user.userid),
      csrf: signedIn.csrf,
      revoked,
    }),
    HTML,
  );
}

/** `POST /settings/tokens/revoke`, from the page: the session's cookie and its CSRF value. */
export async function revokeFromPage(
  hub: Hub,
  request: Request,
  response: ServerResponse,
): Promise<void> {
  sameOriginOnly(hub, request);
  const form = await readForm(request);
  const signedIn = await session(hub, request);
  if (!signedIn || !sameSecret(form.get('csrf') ?? '', signedIn.csrf))
    throw new HttpError(403, 'revoke tokens from the page of your tokens', true);
  const name = form.get('name') ?? '';
  if (!(await revokeNamedToken(hub.store, signedIn.userid, name)))
    throw new HttpError(404, `you have no token named ${JSON.stringify(name)}`, true);
  redirect(response, '/settings/tokens?revoked=1', 303);
}
