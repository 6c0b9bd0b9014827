/**
 * The use cases of `data token create|list|revoke`: the hub's `/api/tokens`, over the
 * signed-in user's token. No terminal I/O; a refusal is a RefusedError with the hub's reason.
 */
import {
  isTokenCreated,
  isTokenRecord,
  ServerError,
  type HttpInit,
  type TokenCreated,
  type TokenRecord,
  type TokenRequest,
} from '@data/core';
import { signedInCall, type SignedInCallDeps } from './signed-in.js';

/** The hub, the fetch, the signed-in token and the error of its refusal. */
export type TokensDeps = SignedInCallDeps;

/** The hub's answer to one call of these use cases (client/signed-in.ts). */
function call(deps: TokensDeps, step: string, path: string, init: HttpInit): Promise<unknown> {
  return signedInCall(
    deps,
    step,
    path,
    init,
    {
      path: '/api/tokens',
      lacks: 'does not make named tokens',
    },
    { reason: 'token-change-sent' },
  );
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
