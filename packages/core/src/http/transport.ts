/**
 * The one module that imports undici, for API calls and uploads (downloads go through
 * lending.ts). It speaks through undici's request API rather than its fetch: the bodies are
 * Node streams with no WHATWG stream in between, which halved the CPU time per gigabyte when
 * downloads still came through here (npm run bench:transfer).
 */
import { Agent, EnvHttpProxyAgent, request, type Dispatcher } from 'undici';
import type { HttpFetch, HttpInit, HttpResponse } from './http.js';
import type { ProxySettings } from './proxy.js';

const TIMEOUTS = { connectTimeout: 30_000, headersTimeout: 60_000, bodyTimeout: 300_000 };

export const agent = new Agent(TIMEOUTS);

/**
 * A fetch through the proxies of the environment: undici's proxy agent tunnels https
 * through CONNECT, sends plain http to the proxy, and leaves the hosts of NO_PROXY alone.
 * The settings are given whole, so that undici reads nothing of the environment itself.
 */
export function proxiedFetch(settings: ProxySettings): HttpFetch {
  const dispatcher = new EnvHttpProxyAgent({ ...settings, ...TIMEOUTS });
  return (url, init) => fetchWith(dispatcher, url, init);
}

type RequestBody = NonNullable<Parameters<typeof request>[1]>['body'];

/** One request, redirects not followed: `followingRedirects` in http.ts does that for every fetch. */
export function fetch(url: string, init: HttpInit = {}): Promise<HttpResponse> {
  return fetchWith(agent, url, init);
}

async function fetchWith(
  dispatcher: Dispatcher,
  url: string,
  init: HttpInit = {},
): Promise<HttpResponse> {
  const response = await request(url, {
    method: (init.method ?? 'GET') as 'GET',
    headers: init.headers ?? {},
    // undici takes async iterables as bodies (and writes them chunk by chunk, waiting for
    // 'drain'); its type declarations leave them out.
    body: (init.body ?? null) as RequestBody,
    signal: init.signal ?? null,
    dispatcher,
  });
  const { headers, body, statusCode } = response;
  return {
    ok: statusCode >= 200 && statusCode < 300,
    status: statusCode,
    headers: {
      get(name) {
        const value = headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
    body,
    text: () => body.text(),
  };
}
