/**
 * A fetch for the client's tests, with no network: it answers from files held by URL, and
 * records each URL it is asked.
 */
import type { HttpFetch } from '../../packages/core/src/http/http.js';

/**
 * What a URL that holds no file gets: a 404 (`missing`), the error of a host where nothing
 * listens (`refused`, ECONNREFUSED, as undici's fetch throws it), or a test failure
 * (`unexpected`, for code that must ask nothing).
 */
export type Otherwise = 'missing' | 'refused' | 'unexpected';

export function fakeFetch(
  files: Readonly<Record<string, string>> = {},
  otherwise: Otherwise = 'missing',
): { fetch: HttpFetch; asked: string[] } {
  const asked: string[] = [];
  const fetch: HttpFetch = (url) => {
    asked.push(url);
    const body = files[url];
    if (body === undefined && otherwise === 'refused')
      return Promise.reject(
        Object.assign(new TypeError('fetch failed'), {
          cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
        }),
      );
    if (body === undefined && otherwise === 'unexpected')
      return Promise.reject(new Error(`no request expected: ${url}`));
    return Promise.resolve(
      new Response(body ?? 'not found', {
        status: body === undefined ? 404 : 200,
      }) as unknown as Awaited<ReturnType<HttpFetch>>,
    );
  };
  return { fetch, asked };
}

/** A fetch for code that must ask nothing: any request fails the test. */
export const refuse: HttpFetch = fakeFetch({}, 'unexpected').fetch;
