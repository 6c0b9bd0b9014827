/**
 * Which credential goes with a request. A hub's token is the key to its user's account for
 * weeks: it goes to that hub and nowhere else, whoever names the address (a README, a chat
 * message, a descriptor's resource path). Everything the client sends a token with asks here.
 */
import type { HttpFetch } from './http.js';

/** Where one hub answers: its API, and its site for reads (the API unless set apart). */
export interface HubOrigins {
  api: string;
  site: string;
}

/** The header the protocol carries a token in. */
const TOKEN_HEADER = 'Auth-Token';

/**
 * The one rule: a token belongs to the exact origin (scheme, host and port) of the hub's API
 * or site. 127.0.0.1 and localhost are two origins, as are two ports of one host, and http
 * and https of one host; a default port is the same as none (URL.origin says so).
 */
export function tokenBelongsTo(url: string, hub: HubOrigins): boolean {
  const origin = originOf(url);
  return origin !== undefined && (origin === originOf(hub.api) || origin === originOf(hub.site));
}

function originOf(url: string): string | undefined {
  try {
    const { origin, protocol } = new URL(url);
    return protocol === 'http:' || protocol === 'https:' ? origin : undefined;
  } catch {
    return undefined;
  }
}

/** The headers that carry `token` to `url`: none when the URL is not the hub's. */
export function credentialHeaders(
  url: string,
  hub: HubOrigins,
  token: string | undefined,
): Record<string, string> {
  return token && tokenBelongsTo(url, hub) ? { [TOKEN_HEADER]: token } : {};
}

/**
 * A fetch that adds the hub's token to the requests for the hub, and to no other; `withheld`
 * hears the origin of each request a token was held back from. A redirect is the wrapped
 * fetch's to follow: `followingRedirects` drops the token once a redirect leaves the origin.
 * With `refused`, the hub's 401 to a request that carried the token (the hub refuses a
 * token it does not know, or one revoked or expired) is that error, thrown once the answer's
 * body is read, rather than an answer that would read as a missing or private dataset.
 */
export function carryingToken(
  fetch: HttpFetch,
  hub: HubOrigins,
  token: string | undefined,
  withheld?: (origin: string) => void,
  refused?: () => Error,
): HttpFetch {
  if (!token) return fetch;
  return async (url, init = {}) => {
    const headers = credentialHeaders(url, hub, token);
    const carried = TOKEN_HEADER in headers;
    if (!carried) withheld?.(originOf(url) ?? url);
    const response = await fetch(url, { ...init, headers: { ...init.headers, ...headers } });
    if (carried && refused && response.status === 401) {
      await response.text();
      throw refused();
    }
    return response;
  };
}
