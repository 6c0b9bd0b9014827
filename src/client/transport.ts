/**
 * The one module that imports undici. It speaks through undici's request API rather than its
 * fetch: the bodies are Node streams with no WHATWG stream in between, which halved the CPU
 * time per downloaded gigabyte when measured (npm run bench:transfer).
 */
import { Agent, request } from 'undici';
import type { HttpFetch, HttpInit, HttpResponse } from './http.js';

export const agent = new Agent({
  connectTimeout: 30_000,
  headersTimeout: 60_000,
  bodyTimeout: 300_000,
});

type RequestBody = NonNullable<Parameters<typeof request>[1]>['body'];

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_HOPS = 5;
/** Headers that carry credentials and never follow a redirect to another origin. */
const CREDENTIALS = new Set(['auth-token', 'authorization', 'cookie']);

async function once(url: string, init: HttpInit): Promise<HttpResponse> {
  const response = await request(url, {
    method: (init.method ?? 'GET') as 'GET',
    headers: init.headers ?? {},
    // undici takes async iterables as bodies (and writes them chunk by chunk, waiting for
    // 'drain'); its type declarations leave them out.
    body: (init.body ?? null) as RequestBody,
    signal: init.signal ?? null,
    dispatcher: agent,
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

function forOrigin(headers: Record<string, string>, sameOrigin: boolean): Record<string, string> {
  if (sameOrigin) return headers;
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !CREDENTIALS.has(name.toLowerCase())),
  );
}

/**
 * fetch as the client needs it. Redirects are followed unless `redirect: 'manual'`; the
 * credentials stay behind when a redirect leaves the first origin.
 */
export const fetch: HttpFetch = async (url, init = {}) => {
  const origin = new URL(url).origin;
  let current = url;
  let hopInit = init;
  for (let hop = 0; ; hop++) {
    const response = await once(current, hopInit);
    const location = response.headers.get('location');
    if (init.redirect === 'manual' || !REDIRECTS.has(response.status) || !location) return response;
    const replayable = typeof hopInit.body === 'string' || hopInit.body instanceof Uint8Array;
    if (hop >= MAX_HOPS || (hopInit.body !== undefined && !replayable && response.status >= 307))
      return response;
    await response.text();
    current = new URL(location, current).href;
    const method = hopInit.method ?? 'GET';
    const asGet =
      (response.status === 303 && method !== 'HEAD') ||
      (response.status <= 302 && method === 'POST');
    const { body, ...rest } = hopInit;
    hopInit = {
      ...rest,
      ...(asGet ? { method: 'GET' } : body === undefined ? {} : { body }),
      headers: forOrigin(init.headers ?? {}, new URL(current).origin === origin),
    };
  }
};
