import type { AuthCheck, FlowStatus, RevisionEntry, SearchResult, UploadTarget } from '@data/core';
import { ApiError, AuthError, RefusedError, ServerError } from '@data/core';
import { isAuthCheck, isFlowStatus, isRevisionEntry, isSearchResult } from '@data/core';
import type { Profile } from '../credentials/store.js';
import { credentialHeaders } from '@data/core';
import { json, send, withRetries, type HttpFetch, type HttpInit } from '@data/core';

// The protocol's types are core's (protocol/types.ts), shared with the hub.
export type { FlowStatus, RevisionEntry, SearchResult, UploadTarget } from '@data/core';
export type CheckResult = AuthCheck;

function record(value: unknown, step: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new ServerError(`${step}: answered an unexpected document`);
  return value as Record<string, unknown>;
}

/** A hub's answer once its guard (core's protocol/guards.ts) says it is the protocol's `what`. */
function answer<T>(
  value: unknown,
  step: string,
  guard: (value: unknown) => value is T,
  what: string,
): T {
  if (!guard(value)) throw new ServerError(`${step}: answered a document that is not ${what}`);
  return value;
}

/** Each entry of a list in a hub's answer, checked by its guard. */
function entries<T>(
  value: unknown,
  step: string,
  guard: (value: unknown) => value is T,
  what: string,
): T[] {
  return Array.isArray(value) ? value.map((entry) => answer(entry, step, guard, what)) : [];
}

/** What each call of the protocol does for the user, as a refusal of it says: never the route. */
const ACTIONS: Readonly<Record<string, string>> = {
  'auth check': 'say who the token is',
  'auth authorize (rawstore)': 'take the upload',
  'auth authorize (source)': 'publish the package',
  'rawstore authorize': 'take the upload',
  'rawstore presign': 'take the upload',
  'source upload': 'publish the package',
  'publication status': 'show the publication',
  search: 'search',
  'resolve user': 'look the owner up',
  history: 'show the history',
  delete: 'delete the dataset',
};

/** The protocol's names in a hub's reason, and what the user knows them as. */
const WIRE_NAMES: Readonly<Record<string, string>> = {
  'metadata.owner': 'the owner it is published under',
};

/**
 * A hub's refusal of a call, in the user's words: what it would not do, and its reason with
 * the protocol's names said as the user knows them (the CLI prints it escaped).
 */
export function refusalText(api: string, step: string, reason: string): string {
  let said = reason;
  for (const [wire, words] of Object.entries(WIRE_NAMES))
    said = said.split(JSON.stringify(wire)).join(words);
  return `${api} refused to ${ACTIONS[step] ?? step}: ${said}`;
}

/** The hub's API, one method per call of the protocol; tokens travel in Auth-Token only. */
export class HubApi {
  /**
   * `refused`: the error of the hub refusing the credential sent (a 401: a token it does not
   * know, or one revoked or expired), in the words of where it came from; undefined when the
   * caller has none to say.
   */
  constructor(
    readonly api: string,
    private readonly fetch: HttpFetch,
    private readonly signal?: AbortSignal,
    private readonly refused: () => Error | undefined = () => undefined,
  ) {}

  /** The headers that carry a token (the user's or a service's) to this API. */
  private auth(path: string, token: string | undefined): Record<string, string> {
    return credentialHeaders(`${this.api}${path}`, { api: this.api, site: this.api }, token);
  }

  /**
   * One call whose answer is JSON; `retried` after network errors and 5xx. A 403 is the
   * hub refusing a valid credential (a scope, a role, a dataset it was not made for, a
   * quota): a RefusedError (exit 1), not a failure of the hub.
   */
  private async call(
    step: string,
    path: string,
    init: HttpInit,
    retried: boolean,
  ): Promise<unknown> {
    const signal = this.signal ? { signal: this.signal } : {};
    const attempt = async () =>
      json(step, await send(this.fetch, step, `${this.api}${path}`, { ...init, ...signal }));
    try {
      return await (retried ? withRetries(attempt, signal) : attempt());
    } catch (error) {
      if (error instanceof ApiError && error.status === 403)
        throw new RefusedError(refusalText(this.api, error.step, error.detail), { cause: error });
      // A 401 refuses the credential sent; without one, it is the hub's answer as it is.
      const carried = init.headers !== undefined && 'Auth-Token' in init.headers;
      if (error instanceof ApiError && error.status === 401 && carried)
        throw this.refused() ?? error;
      throw error;
    }
  }

  /** GETs are retried: a blip must not end a publication. */
  private get(step: string, path: string, token?: string): Promise<unknown> {
    return this.call(step, path, { headers: this.auth(path, token) }, true);
  }

  /** Only POSTs that change nothing when repeated are retried: not /source/upload. */
  private post(
    step: string,
    path: string,
    token: string,
    body: unknown,
    idempotent = false,
  ): Promise<unknown> {
    const headers = { ...this.auth(path, token), 'Content-Type': 'application/json' };
    return this.call(
      step,
      path,
      { method: 'POST', headers, body: JSON.stringify(body) },
      idempotent,
    );
  }

  /**
   * `/auth/check`; with `next`, the sign-in URLs lead there. With a PKCE `challenge`, the
   * hub returns a one-time code to `next` instead of the token (see `exchangeCode`).
   */
  async check(token?: string, next?: string, challenge?: string): Promise<CheckResult> {
    const query = new URLSearchParams();
    if (next) query.set('next', next);
    if (challenge) {
      query.set('response', 'code');
      query.set('code_challenge', challenge);
    }
    const search = query.size > 0 ? `?${query.toString()}` : '';
    return answer(
      await this.get('auth check', `/auth/check${search}`, token),
      'auth check',
      isAuthCheck,
      'a sign-in check',
    );
  }

  /** Trades a one-time sign-in code and the verifier of its challenge for a user token. */
  async exchangeCode(code: string, verifier: string): Promise<string> {
    const response = await send(this.fetch, 'auth token', `${this.api}/auth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code, code_verifier: verifier }),
      ...(this.signal ? { signal: this.signal } : {}),
    });
    if (response.status === 400) {
      await response.text();
      throw new AuthError('the hub refused the sign-in code (it is used once, within a minute)');
    }
    const body = record(await json('auth token', response), 'auth token');
    if (typeof body.token !== 'string' || body.token === '')
      throw new ServerError('auth token: answered a document that is not a token');
    return body.token;
  }

  /** Revokes a user token at the hub; false when the hub does not know revocation. */
  async logout(token: string): Promise<boolean> {
    const response = await send(this.fetch, 'auth logout', `${this.api}/auth/logout`, {
      method: 'POST',
      headers: this.auth('/auth/logout', token),
      ...(this.signal ? { signal: this.signal } : {}),
    });
    await response.text();
    if (response.status === 404 || response.status === 405) return false;
    // The hub refuses the token already (unknown, revoked or expired): nothing left to revoke.
    if (response.status === 401) return true;
    if (!response.ok)
      throw new ApiError('auth logout', response.status, 'could not revoke the token');
    return true;
  }

  /** A service token; the protocol answers without one when the user token is not valid. */
  async authorize(
    token: string,
    service: 'rawstore' | 'source',
  ): Promise<{ token: string; userid: string }> {
    const body = record(
      await this.get(`auth authorize (${service})`, `/auth/authorize?service=${service}`, token),
      'auth authorize',
    );
    if (typeof body.token !== 'string' || body.token === '')
      throw (
        this.refused() ?? new AuthError('the hub did not accept your token (it may have expired)')
      );
    return { token: body.token, userid: typeof body.userid === 'string' ? body.userid : '' };
  }

  /** `retried` false for a request whose failure the caller gets by without. */
  async rawstoreAuthorize(
    token: string,
    body: unknown,
    retried = true,
  ): Promise<Record<string, UploadTarget>> {
    const reply = record(
      await this.post('rawstore authorize', '/rawstore/authorize', token, body, retried),
      'rawstore authorize',
    );
    // Each target is checked where it is used (stage.ts): a hub that gives no upload form
    // for a file it does not hold is named there.
    return record(reply.filedata, 'rawstore authorize') as Record<string, UploadTarget>;
  }

  /**
   * A URL the pipeline can read the stored object at: signed when the object is private.
   * A hub refuses (403) to sign for a token limited to datasets, and reads the object by
   * its plain URL's key: then the plain URL.
   */
  async presign(token: string, ownerid: string, url: string): Promise<string> {
    const query = new URLSearchParams({ ownerid, url });
    const answered = await this.get(
      'rawstore presign',
      `/rawstore/presign?${query.toString()}`,
      token,
    ).catch((error: unknown) => {
      if (error instanceof RefusedError) return { url };
      throw error;
    });
    const reply = record(answered, 'rawstore presign');
    if (typeof reply.url !== 'string' || reply.url === '')
      throw new ServerError('rawstore presign: answered a document that is not a presigned URL');
    return reply.url;
  }

  /** `unchanged`: the hub made no revision, the package being the one it publishes. */
  async sourceUpload(
    token: string,
    spec: unknown,
  ): Promise<{ flowId: string; unchanged: boolean }> {
    const reply = record(
      await this.post('source upload', '/source/upload', token, spec),
      'source upload',
    );
    // A refusal comes with an error status (send throws ApiError); one that says success
    // false with a 200, or success without a revision, is an answer of the wrong shape.
    if (reply.success !== true) {
      const errors = Array.isArray(reply.errors)
        ? reply.errors.map(String).join('; ')
        : 'no reason given';
      throw new ServerError(refusalText(this.api, 'source upload', errors));
    }
    if (typeof reply.flow_id !== 'string' || reply.flow_id === '')
      throw new ServerError('source upload: answered a document that is not a publication');
    return { flowId: reply.flow_id, unchanged: reply.unchanged === true };
  }

  /** Datasets matching words, newest first; `owner` keeps one user's (all of them, for that user). */
  async search(
    words: string,
    options: { size: number; owner?: string | undefined },
    token?: string,
  ): Promise<{ results: SearchResult[]; total: number }> {
    const query = new URLSearchParams({ q: JSON.stringify(words), size: String(options.size) });
    if (options.owner) query.set('owner', options.owner);
    const reply = record(
      await this.get('search', `/metastore/search?${query.toString()}`, token),
      'search',
    );
    const results = entries(reply.results, 'search', isSearchResult, 'a search result');
    const summary = reply.summary as { total?: unknown } | undefined;
    return { results, total: typeof summary?.total === 'number' ? summary.total : results.length };
  }

  /** The user id behind a user name, or undefined for a name the hub does not know. */
  async resolve(username: string): Promise<string | undefined> {
    return (await this.owner(username))?.id;
  }

  /**
   * The owner of a name: its id, and whether it is a user or an organisation (unknown on an
   * older hub); undefined for a name the hub does not know.
   */
  async owner(
    username: string,
  ): Promise<{ id: string; kind: 'user' | 'organisation' | undefined } | undefined> {
    const reply = record(
      await this.get('resolve user', `/auth/resolve?username=${encodeURIComponent(username)}`),
      'resolve user',
    );
    if (typeof reply.userid !== 'string') return undefined;
    const kind = reply.kind === 'user' || reply.kind === 'organisation' ? reply.kind : undefined;
    return { id: reply.userid, kind };
  }

  async revisions(ownerid: string, dataset: string, token?: string): Promise<RevisionEntry[]> {
    const path = `/source/${encodeURIComponent(ownerid)}/${encodeURIComponent(dataset)}/revisions`;
    const reply = record(await this.get('history', path, token), 'history');
    return entries(reply.revisions, 'history', isRevisionEntry, 'a revision');
  }

  async deleteDataset(ownerid: string, dataset: string, token: string): Promise<void> {
    const path = `/source/${encodeURIComponent(ownerid)}/${encodeURIComponent(dataset)}`;
    await this.call('delete', path, { method: 'DELETE', headers: this.auth(path, token) }, false);
  }

  async status(flowId: string, token?: string): Promise<FlowStatus> {
    return answer(
      await this.get('publication status', `/source/${flowId}`, token),
      'publication status',
      isFlowStatus,
      'a publication status',
    );
  }
}

/** The profile of an authenticated check, or undefined when it lacks an id or a user name. */
export function profileOf(check: CheckResult): Profile | undefined {
  const profile = check.profile;
  if (!check.authenticated || !profile) return undefined;
  const text = (key: string): string | undefined =>
    typeof profile[key] === 'string' ? profile[key] : undefined;
  const id = text('id');
  const username = text('username');
  if (!id || !username) return undefined;
  return { id, username, name: text('name') ?? '', email: text('email') ?? '' };
}
