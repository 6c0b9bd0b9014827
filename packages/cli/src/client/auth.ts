import { ApiError, AuthError, NAMED_TOKEN } from '@data/core';
import { profileOf, type HubApi } from './api.js';
import { tokenExpiry, type CredentialStore, type Found } from '../credentials/store.js';

/** Who a token is on the hub, and where it is kept: what `data whoami` shows. */
export interface Identity {
  username: string;
  name: string | null;
  email: string | null;
  id: string;
  hub: string;
  stored: string;
  expires: string | null;
  /** Of a named token: its name, scope and the datasets it may publish to (none: any). */
  token?: { name: string; scope: string; datasets: string[] };
}

/**
 * The use case of `data whoami`: the hub is asked who the token is. A token it refuses is
 * `refused(found)`, the error that says so in the words that fit where the token came from.
 */
export async function runWhoami(
  options: { found: Found },
  deps: { api: HubApi; refused: (found: Found) => Error },
): Promise<Identity> {
  const { found } = options;
  const check = await deps.api.check(found.token);
  const profile = profileOf(check);
  if (!profile) throw deps.refused(found);
  const named = check.token;
  return {
    username: profile.username,
    name: profile.name ?? null,
    email: profile.email ?? null,
    id: profile.id,
    hub: deps.api.api,
    stored: found.location,
    expires: named?.expires ?? tokenExpiry(found.token)?.toISOString() ?? null,
    ...(named ? { token: { name: named.name, scope: named.scope, datasets: named.datasets } } : {}),
  };
}

export interface LoginOptions {
  /** A token given (piped to `--with-token`); without one, the user signs in in a browser. */
  token?: string | undefined;
  /** The sign-in provider, when the hub has several. */
  provider?: string | undefined;
  /** How long to wait for the browser. */
  timeoutMs: number;
}

export interface LoginDeps {
  api: HubApi;
  credentials: CredentialStore;
  signal: AbortSignal;
  /** Shows the sign-in page's address (and opens it, if it may). */
  show: (url: string) => Promise<void> | void;
}

/** The use case of `data login`: a token checked with the hub, then kept for it. */
export async function runLogin(
  options: LoginOptions,
  deps: LoginDeps,
): Promise<{ hub: string; username: string; stored: string; warning?: string }> {
  const { api } = deps;
  let token = options.token;
  if (token === undefined) {
    const { signInWithBrowser } = await import('./login.js');
    token = await signInWithBrowser({
      api,
      provider: options.provider,
      timeoutMs: options.timeoutMs,
      signal: deps.signal,
      show: deps.show,
    });
  }
  // A hub refuses a token it does not know (or one revoked or expired) with a 401, or says
  // it is not signed in: either way this token is not kept.
  const check = await api.check(token).catch((error: unknown) => {
    if (error instanceof ApiError && error.status === 401) return undefined;
    throw error;
  });
  const profile = check && profileOf(check);
  if (!profile)
    throw new AuthError(`${api.api} refused this token: it is unknown, revoked or expired`);
  const stored = await deps.credentials.set(api.api, { token, profile });
  return {
    hub: api.api,
    username: profile.username,
    stored: stored.location,
    ...(stored.warning ? { warning: stored.warning } : {}),
  };
}

/**
 * The use case of `data logout`: the token kept for the hub is revoked there and forgotten
 * here. A hub out of reach does not keep it here: `onNotRevoked` hears why it was not revoked.
 */
export async function runLogout(deps: {
  api: HubApi;
  credentials: CredentialStore;
  onNotRevoked: (reason: string) => void;
}): Promise<{
  hub: string;
  removed: boolean;
  revoked: boolean;
  named: boolean;
  /** The named token's name, as the hub says it (undefined when it does not, or none). */
  tokenName?: string | undefined;
}> {
  const hub = deps.api.api;
  const stored = await deps.credentials.stored(hub);
  // A named token outlives a sign-out: it is revoked by its name (`/api/tokens`), not here.
  const named = stored !== undefined && NAMED_TOKEN.test(stored.token);
  if (stored && named) {
    // Its name, for the note that says how to revoke it; a hub out of reach names none.
    const check = await deps.api.check(stored.token).catch(() => undefined);
    const removed = await deps.credentials.delete(hub);
    return { hub, removed, revoked: false, named, tokenName: check?.token?.name };
  }
  let revoked = false;
  if (stored && !named)
    revoked = await deps.api.logout(stored.token).catch((error: unknown) => {
      deps.onNotRevoked(error instanceof Error ? error.message : String(error));
      return false;
    });
  const removed = await deps.credentials.delete(hub);
  return { hub, removed, revoked, named };
}
