/**
 * The use cases of `data publisher add|list|remove` (the hub's `/api/publishers`, over the
 * signed-in user's token), and of trusted publishing in CI: a job's OpenID Connect ID token,
 * from GitHub Actions' token endpoint or DATA_ID_TOKEN, traded at the hub's `/auth/trusted`
 * for a token that may publish one dataset. No terminal I/O; a refusal is a typed error
 * with the hub's reason.
 */
import {
  AuthError,
  errorDetail,
  InputError,
  isPublisherRecord,
  isTrustedAnswer,
  isTrustRefusal,
  json,
  send,
  ServerError,
  type HttpFetch,
  type HttpInit,
  type PublisherRecord,
  type PublisherRequest,
  type TrustCheck,
  type TrustedAnswer,
} from '@data/core';
import { signedInAnswer, signedInCall, type SignedInCallDeps } from './signed-in.js';

/** The hub, the fetch, the signed-in token and the error of its refusal. */
export type PublishersDeps = SignedInCallDeps;

/** How a hub without these routes shows. */
const OLDER = { lacks: 'does not know trusted publishers' };

/** A change to the publishers of `dataset` (`owner/dataset`), for an interruption. */
const changing = (dataset: string) =>
  ({ reason: 'publisher-change-sent', subject: dataset }) as const;

/** The hub's answer to one call of these use cases (client/signed-in.ts) about `dataset`. */
function call(
  deps: PublishersDeps,
  step: string,
  dataset: string,
  path: string,
  init: HttpInit,
): Promise<unknown> {
  return signedInCall(deps, step, path, init, OLDER, changing(dataset));
}

const datasetPath = (dataset: string): string =>
  `/api/publishers/${dataset.split('/').map(encodeURIComponent).join('/')}`;

/**
 * Adds a trusted publisher to a dataset (`owner/dataset`): the publisher as the hub keeps it,
 * and whether it was added (the hub answers 201) or was there already, with the same issuer
 * and claims (200, the one it keeps: nothing is added twice).
 */
export async function runPublisherAdd(
  dataset: string,
  request: PublisherRequest,
  deps: PublishersDeps,
): Promise<{ publisher: PublisherRecord; added: boolean }> {
  const { status, body } = await signedInAnswer(
    deps,
    'publisher add',
    datasetPath(dataset),
    {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(request),
    },
    OLDER,
    changing(dataset),
  );
  if (!isPublisherRecord(body))
    throw new ServerError('publisher add: the hub answered something that is not a publisher');
  return { publisher: body, added: status !== 200 };
}

/** A dataset's trusted publishers, oldest first. */
export async function runPublisherList(
  dataset: string,
  deps: PublishersDeps,
): Promise<PublisherRecord[]> {
  const answer = await call(deps, 'publisher list', dataset, datasetPath(dataset), {});
  if (!Array.isArray(answer) || !answer.every(isPublisherRecord))
    throw new ServerError(
      'publisher list: the hub answered something that is not a list of publishers',
    );
  return answer;
}

/** Removes a dataset's trusted publisher by its id: the publisher removed. */
export async function runPublisherRemove(
  dataset: string,
  id: string,
  deps: PublishersDeps,
): Promise<PublisherRecord> {
  const answer = await call(
    deps,
    'publisher remove',
    dataset,
    `${datasetPath(dataset)}/${encodeURIComponent(id)}`,
    { method: 'DELETE' },
  );
  if (!isPublisherRecord(answer))
    throw new ServerError('publisher remove: the hub answered something that is not a publisher');
  return answer;
}

/** Where a CI job's ID token comes from, as its environment says. */
export type IdTokenSource =
  { kind: 'github'; requestUrl: string; requestToken: string } | { kind: 'env'; token: string };

type Env = Record<string, string | undefined>;

/**
 * The ID token a CI job may trade, if its environment offers one: GitHub Actions' token
 * endpoint (a job with `permissions: id-token: write`), or DATA_ID_TOKEN (GitLab's
 * `id_tokens`, or any issuer's token put there).
 */
export function idTokenSource(env: Env): IdTokenSource | undefined {
  const requestUrl = env.ACTIONS_ID_TOKEN_REQUEST_URL;
  const requestToken = env.ACTIONS_ID_TOKEN_REQUEST_TOKEN;
  if (requestUrl && requestToken) return { kind: 'github', requestUrl, requestToken };
  const token = env.DATA_ID_TOKEN?.trim();
  return token ? { kind: 'env', token } : undefined;
}

/** What to do about each check an ID token failed at the hub. */
const TRUST_HINTS: Readonly<Record<TrustCheck, string>> = {
  token: "the ID token must be the CI's own, as it gave it",
  issuer:
    "the hub's operator lists the issuers it trusts (trustedIssuers of the hub's configuration)",
  discovery: "the hub could not read the issuer's keys: try again later",
  signature: "the ID token must be the CI's own, as it gave it",
  aud: "the hub's address given here must be its public URL, for which the ID token is asked",
  exp: 'an ID token lives minutes: ask for it just before publishing, and check the clocks',
  nbf: 'check the clocks of the CI runner and of the hub',
  claims:
    "a trusted publisher of the dataset must name this CI's issuer and the job's claims (such as repository and ref)",
  dataset: 'name the owner of the dataset too',
};

/** Bytes of the Actions token endpoint's answer: an ID token is a few kilobytes. */
const ANSWER_CHARS = 64 * 1024;

/**
 * The job's ID token for this audience (the hub's address): from the Actions endpoint,
 * whose request token goes to that address only (no redirect is followed), or as given.
 */
export async function jobIdToken(
  source: IdTokenSource,
  audience: string,
  fetch: HttpFetch,
  signal?: AbortSignal,
): Promise<string> {
  if (source.kind === 'env') return source.token;
  const step = 'ID token';
  let url: URL;
  try {
    url = new URL(source.requestUrl);
  } catch {
    throw new InputError('ACTIONS_ID_TOKEN_REQUEST_URL is not a URL');
  }
  url.searchParams.set('audience', audience);
  const response = await send(fetch, step, url.href, {
    headers: { Authorization: `Bearer ${source.requestToken}`, Accept: 'application/json' },
    redirect: 'manual',
    ...(signal ? { signal } : {}),
  });
  const text = (await response.text()).slice(0, ANSWER_CHARS);
  if (response.status === 401 || response.status === 403)
    throw new AuthError(
      `the CI job's ID token was refused to it (${String(response.status)})`,
      'the job needs the permission id-token: write (permissions: in its workflow)',
    );
  if (response.status !== 200)
    throw new ServerError(
      `${step}: the CI's token endpoint answered ${String(response.status)}: ${errorDetail(text)}`,
    );
  let value: unknown;
  try {
    value = (JSON.parse(text) as { value?: unknown }).value;
  } catch {
    value = undefined;
  }
  if (typeof value !== 'string' || value === '')
    throw new ServerError(`${step}: the CI's token endpoint answered no ID token`);
  return value;
}

/**
 * Trades an ID token at the hub for a token that may publish one dataset (`owner/dataset`:
 * the hub matches only that owner's publishers). A refusal is an AuthError with the hub's
 * reason (which check failed); an issuer the hub cannot reach, a ServerError.
 */
export async function tradeIdToken(
  idToken: string,
  dataset: string,
  api: string,
  fetch: HttpFetch,
  signal?: AbortSignal,
): Promise<TrustedAnswer> {
  const step = 'trusted publishing';
  const response = await send(fetch, step, `${api}/auth/trusted`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ token: idToken, dataset }),
    // The ID token goes to the hub's address only: a redirect is answered, never followed
    // (a 307 or 308 would send it again, elsewhere).
    redirect: 'manual',
    ...(signal ? { signal } : {}),
  });
  if (response.status >= 300 && response.status < 400) {
    await response.text();
    throw new ServerError(
      `${step}: ${api} answered ${String(response.status)}, a redirect, where it trades ID tokens: the ID token was not sent on`,
    );
  }
  if (response.status === 200) {
    const answer = await json(step, response);
    if (!isTrustedAnswer(answer))
      throw new ServerError(`${step}: the hub answered something that is not a token`);
    return answer;
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (isTrustRefusal(body) && response.status < 500)
    throw new AuthError(
      `${api} refused the CI job's ID token: ${body.error}`,
      TRUST_HINTS[body.check],
    );
  if (response.status === 404 || response.status === 405)
    throw new ServerError(`${step}: ${api} does not take ID tokens (an older hub)`);
  throw new ServerError(
    `${step}: ${api} answered ${String(response.status)}: ${errorDetail(text)}`,
  );
}
