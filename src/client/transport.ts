/**
 * The one module that imports undici, for API calls and uploads (downloads go through
 * lending.ts). It speaks through undici's request API rather than its fetch: the bodies are
 * Node streams with no WHATWG stream in between, which halved the CPU time per gigabyte when
 * downloads still came through here (npm run bench:transfer).
 */
import { Agent, request } from 'undici';
import type { HttpInit, HttpResponse } from './http.js';

export const agent = new Agent({
  connectTimeout: 30_000,
  headersTimeout: 60_000,
  bodyTimeout: 300_000,
});

type RequestBody = NonNullable<Parameters<typeof request>[1]>['body'];

/** One request, redirects not followed: `followingRedirects` in http.ts does that for every fetch. */
export async function fetch(url: string, init: HttpInit = {}): Promise<HttpResponse> {
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
