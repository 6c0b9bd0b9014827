import { randomBytes } from 'node:crypto';
import type {
  AuthCheck,
  AuthorizeAnswer,
  LogoutAnswer,
  ResolveAnswer,
  TokenAnswer,
} from '@data/core';
import type { ServerResponse } from 'node:http';
import type { Hub } from '../context.js';
import { credentialOf, liveClaims, requestCredential, tokenOf } from './callers.js';
import { HttpError } from '../http-error.js';
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
import { isReservedName, USERNAME } from '../names.js';
import { SignInRefused } from '../engines/providers/types.js';
import {
  addCookie,
  begunHere,
  challengeOf,
  checkFormOrigin,
  codeKey,
  cookieOf,
  csrfPair,
  destinationOf,
  finishSignIn,
  issueUserToken,
  readTicket,
  sameOriginOnly,
  SESSION_COOKIE,
  sessionCookie,
  signInParams,
  signInRequest,
  stateCookie,
  type SignInRequest,
} from './sign-in.js';
import type { User } from '../engines/metadata/types.js';
import { hmac, sameSecret, signToken } from '../services/tokens.js';
import { shownRecord } from '../services/named-tokens.js';
import { loginPage, signInChoicePage, signOutPage } from '../views/login.js';

const DAY = 86_400;
const ATTEMPT_MS = 10 * 60_000;

function profile(user: User): Record<string, unknown> {
  return {
    id: user.userid,
    provider_id: user.provider,
    username: user.username,
    name: user.name,
    email: user.email,
    avatar_url: null,
    join_date: user.join_date,
  };
}

/** Every provider a sign-in may use here, with the address that starts it. */
function providerUrls(hub: Hub, request: SignInRequest): Record<string, { url: string }> {
  const query = signInParams(request).toString();
  const names = [...hub.providers.keys(), ...(hub.devSignIn ? ['local'] : [])];
  return Object.fromEntries(
    names.map((name) => [
      name,
      { url: `${hub.base}/auth/login/${encodeURIComponent(name)}${query ? `?${query}` : ''}` },
    ]),
  );
}

/**
 * Who the token is: any live credential, a sign-in's or a named token (`dt_…`), whose
 * name, scope, datasets and expiry are said too (`data whoami` shows them).
 */
export async function check(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  // The credential, found once: a named token unknown is not looked up again.
  const credential = await requestCredential(hub, request);
  const user = credential && (await hub.store.userById(credential.caller.userid));
  if (user) {
    request.userId = user.userid;
    const shown = credential.named && (await shownRecord(hub.store, credential.named));
    return sendJson(response, 200, {
      authenticated: true,
      profile: profile(user),
      ...(shown
        ? {
            token: {
              name: shown.name,
              scope: shown.scope,
              datasets: shown.datasets,
              expires: shown.expires,
            },
          }
        : {}),
    } satisfies AuthCheck);
  }
  sendJson(response, 200, {
    authenticated: false,
    providers: providerUrls(hub, signInRequest(hub, request.url.searchParams)),
  } satisfies AuthCheck);
}

export async function authorize(
  hub: Hub,
  request: Request,
  response: ServerResponse,
): Promise<void> {
  const token = tokenOf(request);
  const credential = token ? await credentialOf(hub, token) : undefined;
  const user = credential && (await hub.store.userById(credential.caller.userid));
  const service = request.url.searchParams.get('service');
  // The protocol answers 200 without a token when the caller is not authenticated.
  if (!credential || !user || (service !== 'rawstore' && service !== 'source'))
    return sendJson(response, 200, { permissions: {} } satisfies AuthorizeAnswer);
  request.userId = user.userid;
  const permissions = {
    max_storage: hub.options.maxStorageBytes,
    max_datasets: hub.options.maxDatasets,
  };
  // A service token allows what its credential allows, and dies with it: when it is
  // revoked (its id is the `parent`), and at the latest when it expires.
  const { scope, datasets, via } = credential.caller;
  const exp = Math.min(Math.floor(Date.now() / 1000) + DAY, credential.expires);
  const serviceToken = signToken(hub.keys, {
    kind: 'service',
    service,
    userid: user.userid,
    permissions,
    parent: credential.id,
    scope,
    datasets,
    via,
    exp,
  });
  sendCredential(response, 200, {
    userid: user.userid,
    permissions,
    service,
    token: serviceToken,
  } satisfies AuthorizeAnswer);
}

export async function resolve(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const username = request.url.searchParams.get('username') ?? '';
  const owner = await hub.store.userByName(username);
  sendJson(
    response,
    200,
    (owner
      ? { userid: owner.userid, kind: owner.kind === 'organisation' ? 'organisation' : 'user' }
      : { userid: null }) satisfies ResolveAnswer,
  );
}

export function publicKey(hub: Hub, _request: Request, response: ServerResponse): void {
  sendText(response, 200, hub.keys.publicPem, 'application/x-pem-file');
}

/** The host and port of the program on this computer a sign-in goes to, if it goes to one. */
function programHost(hub: Hub, request: SignInRequest): string | undefined {
  const destination = destinationOf(hub, request.next);
  return destination && 'program' in destination ? destination.program.host : undefined;
}

/** The hub's own sign-in page for a browser: one link per provider. */
export function chooseProvider(hub: Hub, request: Request, response: ServerResponse): void {
  const signIn = signInRequest(hub, request.url.searchParams);
  const urls = providerUrls(hub, signIn);
  const list = Object.entries(urls).map(([name, { url }]) => ({
    name,
    url,
    development: hub.devSignIn && name === 'local',
  }));
  sendText(response, 200, signInChoicePage(list, programHost(hub, signIn)), HTML);
}

function devSignInOnly(hub: Hub): void {
  if (!hub.devSignIn) throw new HttpError(404, 'not found');
}

function localForm(
  hub: Hub,
  response: ServerResponse,
  request: SignInRequest,
  status: number,
  error?: string,
): void {
  const fields = Object.fromEntries(signInParams(request));
  fields.csrf = csrfPair(hub, response);
  const destination = programHost(hub, request);
  sendText(response, status, loginPage({ fields, error, destination }), HTML);
}

export function loginForm(hub: Hub, request: Request, response: ServerResponse): void {
  devSignInOnly(hub);
  localForm(hub, response, signInRequest(hub, request.url.searchParams), 200);
}

/** The development sign-in: it believes the name it is given, and is offered only in development. */
export async function loginSubmit(
  hub: Hub,
  request: Request,
  response: ServerResponse,
): Promise<void> {
  devSignInOnly(hub);
  const form = await readForm(request);
  const signIn = signInRequest(hub, form);
  checkFormOrigin(hub, request, form);
  const username = (form.get('username') ?? '').trim().toLowerCase();
  const email = (form.get('email') ?? '').trim().toLowerCase();
  const refuse = (message: string) => {
    hub.metrics.signIn('local', 'failure');
    localForm(hub, response, signIn, 400, message);
  };
  if (!USERNAME.test(username) || isReservedName(username))
    return refuse('Choose a user name of lower-case letters, digits, "-" and "_".');
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) return refuse('Enter a valid e-mail address.');
  const taken = await hub.store.userByName(username);
  if (taken && taken.provider !== 'local') return refuse(`The user name "${username}" is taken.`);
  const user = await hub.store.userForIdentity({
    provider: 'local',
    subject: username,
    username,
    email,
    name: username,
  });
  hub.metrics.signIn('local', 'success');
  await finishSignIn(hub, response, user, signIn, true);
}

/** A sign-in request as kept with its attempt: with when the attempt began (ms). */
type KeptRequest = SignInRequest & { begun: number };

function redirectUri(hub: Hub, provider: string): string {
  return `${hub.base}/auth/callback/${encodeURIComponent(provider)}`;
}

/**
 * Starts a sign-in at a configured provider: the attempt is kept in the database, and its
 * `state` in a cookie of this browser, which alone may end it.
 */
export async function beginProviderSignIn(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  name: string,
): Promise<void> {
  const provider = hub.providers.get(name);
  if (!provider) throw new HttpError(404, `no sign-in provider "${name}"`);
  const signIn = signInRequest(hub, request.url.searchParams);
  const attempt = {
    state: randomBytes(16).toString('base64url'),
    nonce: randomBytes(16).toString('base64url'),
    verifier: randomBytes(32).toString('base64url'),
  };
  let target: URL;
  try {
    const forProgram = programHost(hub, signIn) !== undefined;
    target = await provider.authorizationUrl(redirectUri(hub, name), attempt, forProgram);
  } catch (error) {
    hub.log(`sign-in provider "${name}" cannot be reached: ${String(error)}`);
    throw new HttpError(
      502,
      `the sign-in provider "${name}" cannot be reached; try again later`,
      true,
    );
  }
  const begun = Date.now();
  const kept: KeptRequest = { ...signIn, begun };
  await hub.store.saveLoginState({
    ...attempt,
    provider: name,
    request: JSON.stringify(kept),
    expires: begun + ATTEMPT_MS,
  });
  addCookie(response, stateCookie(hub, attempt.state, ATTEMPT_MS / 1000));
  redirect(response, target.href);
}

export async function providerCallback(
  hub: Hub,
  request: Request,
  response: ServerResponse,
  name: string,
): Promise<void> {
  const provider = hub.providers.get(name);
  const state = request.url.searchParams.get('state') ?? '';
  // Only configured providers' names become labels: a path may say anything.
  const label = provider ? name : 'unknown';
  addCookie(response, stateCookie(hub, '', 0));
  if (!begunHere(request, state)) {
    hub.metrics.signIn(label, 'failure');
    throw new HttpError(
      400,
      'this sign-in was not started in this browser: sign in again from the hub',
      true,
    );
  }
  const attempt = await hub.store.takeLoginState(state);
  if (!provider || attempt?.provider !== name) {
    hub.metrics.signIn(label, 'failure');
    throw new HttpError(
      400,
      'this sign-in has expired or was not started here: sign in again',
      true,
    );
  }
  const kept = JSON.parse(attempt.request) as KeptRequest;
  let user: User;
  let authenticatedAt: number | undefined;
  try {
    const signedIn = await provider.identify(redirectUri(hub, name), request.url, attempt);
    authenticatedAt = signedIn.authenticatedAt;
    user = await hub.store.userForIdentity(signedIn.identity);
  } catch (error) {
    hub.log(
      `sign-in through "${name}" refused: ${error instanceof Error ? error.message : String(error)}`,
    );
    hub.metrics.signIn(label, 'failure');
    const reason =
      error instanceof SignInRefused ? error.message : 'the provider did not confirm who signed in';
    throw new HttpError(401, `sign-in failed: ${reason}`, true);
  }
  hub.metrics.signIn(name, 'success');
  // A code goes to a program without a question only when the user signed in at the provider
  // in this very attempt; a provider answering from its own session did not ask them anything.
  const signedInNow =
    authenticatedAt !== undefined && authenticatedAt >= Math.floor(kept.begun / 1000);
  const { begun: _begun, ...signIn } = kept;
  await finishSignIn(hub, response, user, signIn, signIn.response === 'code' && signedInNow);
}

/** The user confirmed, on the page that names it, that a program on this computer may sign in. */
export async function continueSignIn(
  hub: Hub,
  request: Request,
  response: ServerResponse,
): Promise<void> {
  sameOriginOnly(hub, request);
  const form = await readForm(request);
  const ticket = readTicket(hub, form.get('ticket') ?? '');
  checkFormOrigin(hub, request, form);
  const user = await hub.store.userById(ticket.userid);
  if (!user) throw new HttpError(400, 'this sign-in link is not valid', true);
  await finishSignIn(hub, response, user, ticket.request, true);
}

/** Trades a one-time code and the verifier of its challenge for a user token. */
export async function exchangeCode(
  hub: Hub,
  request: Request,
  response: ServerResponse,
): Promise<void> {
  const body = await readJson(request);
  const code = isObject(body) && typeof body.code === 'string' ? body.code : '';
  const verifier =
    isObject(body) && typeof body.code_verifier === 'string' ? body.code_verifier : '';
  const saved = code ? await hub.store.takeLoginCode(codeKey(code)) : undefined;
  if (!saved || !sameSecret(challengeOf(verifier), saved.challenge))
    return sendJson(response, 400, { error: 'invalid_grant' });
  const user = await hub.store.userById(saved.userid);
  if (!user) return sendJson(response, 400, { error: 'invalid_grant' });
  sendCredential(response, 200, { token: issueUserToken(hub, user) } satisfies TokenAnswer);
}

/**
 * Revokes the caller's user token, and with it every service token issued from it, on every
 * hub process. From a browser: the session cookie, with the form's CSRF value.
 */
export async function logout(hub: Hub, request: Request, response: ServerResponse): Promise<void> {
  const header = request.raw.headers['auth-token'];
  const fromCookie = typeof header !== 'string' || header === '';
  const token = fromCookie ? cookieOf(request, SESSION_COOKIE) : header;
  const claims = token ? await liveClaims(hub, token) : undefined;
  if (fromCookie) {
    sameOriginOnly(hub, request);
    const form = await readForm(request);
    const jti = typeof claims?.jti === 'string' ? claims.jti : '';
    if (!jti || !sameSecret(form.get('csrf') ?? '', hmac(hub.keys, `logout:${jti}`)))
      throw new HttpError(403, 'sign out from the hub page', true);
  }
  if (claims?.kind === 'user' && typeof claims.jti === 'string')
    await hub.store.remember(claims.jti, claims.exp);
  if (!fromCookie)
    return sendJson(response, 200, { revoked: claims !== undefined } satisfies LogoutAnswer);
  addCookie(response, sessionCookie(hub, '', 0));
  redirect(response, '/');
}

export async function signOutForm(
  hub: Hub,
  request: Request,
  response: ServerResponse,
): Promise<void> {
  const token = cookieOf(request, SESSION_COOKIE);
  const claims = token ? await liveClaims(hub, token) : undefined;
  if (typeof claims?.jti !== 'string') return redirect(response, '/');
  sendText(response, 200, signOutPage(hmac(hub.keys, `logout:${claims.jti}`)), HTML);
}
