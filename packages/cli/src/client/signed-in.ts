/**
 * One call of the hub's own API (`/api/orgs`, `/api/tokens`, `/api/publishers`) over the
 * signed-in user's token, for the use cases of client/orgs.ts, tokens.ts and publishers.ts:
 * a refused token is the caller's `refused()` error, a refusal (a name taken, a scope, a
 * role) a RefusedError with the hub's reason, and a hub without the route an older hub.
 */
import {
  credentialHeaders,
  errorDetail,
  InterruptedError,
  json,
  RefusedError,
  send,
  ServerError,
  UsageError,
  type HttpFetch,
  type HttpInit,
  type ErrorReason,
} from '@data/core';

/**
 * Which of the user's things a request that changes something changes, for an interruption:
 * its kind, and the organisation or `owner/dataset` by name, which the advice then names.
 */
export interface ChangeSent {
  reason: Extract<ErrorReason, 'token-change-sent' | 'org-change-sent' | 'publisher-change-sent'>;
  subject?: string | undefined;
}

/** What the signed-in use cases take (commands/auth-common.ts's signedInDeps makes it). */
export interface SignedInCallDeps {
  /** The hub's API address. */
  api: string;
  fetch: HttpFetch;
  signal?: AbortSignal | undefined;
  /** The user's token: a sign-in's, or a named token. */
  token: string;
  /** The error of a token the hub refused, in the words that fit where it came from. */
  refused: () => Error;
  /**
   * The names of the request's fields (`expires_days`) as the user gave them (`--expires`):
   * a hub's reason that quotes one says the user's instead.
   */
  words?: Readonly<Record<string, string>> | undefined;
}

/** A hub's reason with the fields it quotes (`"expires_days"`) named as the user knows them. */
export function inUserTerms(reason: string, words: Readonly<Record<string, string>> = {}): string {
  let said = reason;
  for (const [wire, word] of Object.entries(words))
    said = said.split(JSON.stringify(wire)).join(word);
  return said;
}

/**
 * What the hub answers to a refusal: the statuses of a request it will not carry out. A 400
 * or 422 refuses an argument the user gave (a value out of the hub's range, a claim it will
 * not take): a usage error, as the same argument refused by the CLI itself. The others refuse
 * a request understood (not allowed, not there, taken, a limit reached).
 */
const ARGUMENT_REFUSALS = new Set([400, 422]);
const REFUSALS = new Set([403, 404, 409]);

/**
 * How an older hub, one without these routes, shows: a 405, or a 404 at `path` (the one
 * address of the routes that names nothing that may be missing); `lacks` says what it lacks.
 */
export interface OlderHub {
  path?: string;
  lacks: string;
}

/** Calls the hub; its JSON answer, or the typed error of a refusal. */
export async function signedInCall(
  deps: SignedInCallDeps,
  step: string,
  path: string,
  init: HttpInit,
  older: OlderHub,
  changes: ChangeSent,
): Promise<unknown> {
  return (await signedInAnswer(deps, step, path, init, older, changes)).body;
}

/** As signedInCall, with the status of the answer: 201 made, 200 there already. */
export async function signedInAnswer(
  deps: SignedInCallDeps,
  step: string,
  path: string,
  init: HttpInit,
  older: OlderHub,
  changes: ChangeSent,
): Promise<{ status: number; body: unknown }> {
  const url = `${deps.api}${path}`;
  const headers = {
    ...credentialHeaders(url, { api: deps.api, site: deps.api }, deps.token),
    ...init.headers,
  };
  const response = await send(deps.fetch, step, url, {
    ...init,
    headers,
    ...(deps.signal ? { signal: deps.signal } : {}),
  }).catch((error: unknown) => {
    // Interrupted once a change may have reached the hub: the user is told how to check.
    const change = init.method !== undefined && !['GET', 'HEAD'].includes(init.method);
    if (change && deps.signal?.aborted)
      throw new InterruptedError(deps.signal.reason, {
        reason: changes.reason,
        ...(changes.subject === undefined ? {} : { subject: changes.subject }),
        cause: error,
      });
    throw error;
  });
  if (response.status === 401) {
    await response.text();
    throw deps.refused();
  }
  if (response.status === 405 || (response.status === 404 && path === older.path)) {
    await response.text();
    throw new ServerError(`${step}: ${deps.api} ${older.lacks} (an older hub)`);
  }
  if (ARGUMENT_REFUSALS.has(response.status))
    throw new UsageError(`${step}: ${inUserTerms(errorDetail(await response.text()), deps.words)}`);
  if (REFUSALS.has(response.status))
    throw new RefusedError(
      `${step}: ${inUserTerms(errorDetail(await response.text()), deps.words)}`,
    );
  return { status: response.status, body: await json(step, response) };
}
