/**
 * The use cases of `data token create|list|revoke`: the hub's `/api/tokens`, over the
 * signed-in user's token. No terminal I/O; a refusal is a RefusedError with the hub's reason.
 */
import {
  credentialHeaders,
  errorDetail,
  isTokenCreated,
  isTokenRecord,
  json,
  RefusedError,
  send,
  ServerError,
  type HttpFetch,
  type HttpInit,
  type TokenCreated,
  type TokenRecord,
  type TokenRequest,
} from '@data/core';

export interface TokensDeps {
  /** The hub's API address. */
  api: string;
  fetch: HttpFetch;
  signal?: AbortSignal | undefined;
  /** The user's token: a sign-in's, or an admin token. */
  token: string;
  /** The error of a token the hub refused, in the words that fit where it came from. */
  refused: () => Error;
}

/** What the hub answers to a refusal: the statuses of a request it will not carry out. */
const REFUSALS = new Set([400, 403, 404, 409, 422]);

async function call(
  deps: TokensDeps,
  step: string,
  path: string,
  init: HttpInit,
): Promise<unknown> {
  const url = `${deps.api}${path}`;
  const headers = {
    ...credentialHeaders(url, { api: deps.api, site: deps.api }, deps.token),
    ...init.headers,
  };
  const response = await send(deps.fetch, step, url, {
    ...init,
    headers,
    ...(deps.signal ? { signal: deps.signal } : {}),
  });
  if (response.status === 401) {
    await response.text();
    throw deps.refused();
  }
  if (response.status === 405 || (response.status === 404 && path === '/api/tokens')) {
    await response.text();
    throw new ServerError(`${step}: ${deps.api} does not make named tokens (an older hub)`);
  }
  if (REFUSALS.has(response.status))
    throw new RefusedError(`${step}: ${errorDetail(await response.text())}`);
  return json(step, response);
}

/** Makes a token: the token (shown this once) and its record. */
export async function runTokenCreate(
  request: TokenRequest,
  deps: TokensDeps,
): Promise<TokenCreated> {
  const answer = await call(deps, 'token create', '/api/tokens', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(request),
  });
  if (!isTokenCreated(answer))
    throw new ServerError('token create: the hub answered something that is not a new token');
  return answer;
}

/** The user's tokens' records: never a token. */
export async function runTokenList(deps: TokensDeps): Promise<TokenRecord[]> {
  const answer = await call(deps, 'token list', '/api/tokens', {});
  if (!Array.isArray(answer) || !answer.every(isTokenRecord))
    throw new ServerError('token list: the hub answered something that is not a list of tokens');
  return answer;
}

/** Revokes the user's token of this name, at once on every hub process. */
export async function runTokenRevoke(name: string, deps: TokensDeps): Promise<{ revoked: string }> {
  await call(deps, 'token revoke', `/api/tokens/${encodeURIComponent(name)}`, {
    method: 'DELETE',
  });
  return { revoked: name };
}
