import { ApiError, AuthError, NetworkError, type DataErrorOptions } from '../errors.js';
import { readBoundedText, TextTooLarge } from '../files/bounded-text.js';
import { SilenceError, withSilenceLimit } from './timeouts.js';
import type { HttpFetch, HttpInit, HttpResponse } from './types.js';

export type { HttpFetch, HttpInit, HttpResponse } from './types.js';

function causeCode(error: unknown): string {
  const { cause, code } = error as { cause?: { code?: string; message?: string }; code?: string };
  return (
    cause?.code ??
    cause?.message ??
    (typeof code === 'string' && !code.startsWith('UND_ERR') ? code : undefined) ??
    (error instanceof Error ? error.message : String(error))
  );
}

/** Sends a request for a named step, turning a failure to connect into a NetworkError. */
export async function send(
  fetch: HttpFetch,
  step: string,
  url: string,
  init: HttpInit = {},
): Promise<HttpResponse> {
  try {
    return await fetch(url, init);
  } catch (error) {
    if (init.signal?.aborted) throw error;
    if (error instanceof TooManyRedirects) throw new ApiError(step, 310, 'too many redirects');
    if (error instanceof SilenceError)
      throw new NetworkError(
        `${step}: ${new URL(url).origin} sent nothing for ${String(error.seconds)} s`,
        error,
        { hint: 'the server may be overloaded: try again', reason: 'silent' },
      );
    // A token the hub refused (carryingToken's `refused`): said as it is, not as an outage.
    if (error instanceof AuthError) throw error;
    const code = causeCode(error);
    throw new NetworkError(
      `${step}: cannot reach ${new URL(url).origin} (${code})`,
      error,
      unreachable(code),
    );
  }
}

/** What to check when nothing answers, by the system's reason. */
function unreachable(code: string): DataErrorOptions {
  if (code === 'ECONNREFUSED')
    return {
      hint: 'nothing listens there: is the server running, and is that its address?',
      reason: 'refused',
    };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return {
      hint: 'the host name does not resolve: check the address and your DNS',
      reason: 'unresolved',
    };
  if (code === 'ETIMEDOUT' || code === 'ENETUNREACH' || code === 'EHOSTUNREACH')
    return { hint: 'the network does not reach that host: check the connection (or a proxy)' };
  return { hint: 'check the address and the network connection, then try again' };
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_HOPS = 5;
/** Headers that carry credentials and never follow a redirect to another origin. */
const CREDENTIALS = new Set(['auth-token', 'authorization', 'cookie']);

class TooManyRedirects extends Error {}

function forOrigin(headers: Record<string, string>, sameOrigin: boolean): Record<string, string> {
  if (sameOrigin) return headers;
  return Object.fromEntries(
    Object.entries(headers).filter(([name]) => !CREDENTIALS.has(name.toLowerCase())),
  );
}

/**
 * Follows redirects hop by hop, whatever fetch it wraps, unless asked for `redirect:
 * 'manual'`. The credentials stay behind once a redirect leaves the first origin, for the
 * rest of the chase (a way back does not bring them back); a body that cannot be sent twice
 * ends the chase with the redirect itself.
 */
export function followingRedirects(fetch: HttpFetch): HttpFetch {
  return async (url, init = {}) => {
    if (init.redirect === 'manual') return fetch(url, init);
    const origin = new URL(url).origin;
    let left = false;
    let current = url;
    let hopInit: HttpInit = { ...init, redirect: 'manual' };
    for (let hop = 0; ; hop++) {
      const response = await fetch(current, hopInit);
      const location = response.headers.get('location');
      if (!REDIRECTS.has(response.status) || !location) return response;
      const replayable = typeof hopInit.body === 'string' || hopInit.body instanceof Uint8Array;
      if (hopInit.body !== undefined && !replayable && response.status >= 307) return response;
      if (hop >= MAX_HOPS) throw new TooManyRedirects();
      await response.text();
      current = new URL(location, current).href;
      left ||= new URL(current).origin !== origin;
      const method = hopInit.method ?? 'GET';
      const asGet =
        (response.status === 303 && method !== 'HEAD') ||
        (response.status <= 302 && method === 'POST');
      const { body, ...rest } = hopInit;
      hopInit = {
        ...rest,
        ...(asGet ? { method: 'GET' } : body === undefined ? {} : { body }),
        headers: forOrigin(init.headers ?? {}, !left),
      };
    }
  };
}

/** The fetch the client and the validator use: redirects followed, silences bounded. */
export function clientFetch(fetch: HttpFetch, silenceMs: number): HttpFetch {
  return followingRedirects(withSilenceLimit(fetch, silenceMs));
}

/** Server errors that saying again cannot mend: not implemented, storage full. */
const PERMANENT = new Set([501, 505, 507]);

/** A body's text, refused (exit 3) past the cap of a descriptor or an answer of the hub. */
async function boundedText(step: string, response: HttpResponse): Promise<string> {
  if (!response.body) return response.text();
  try {
    return await readBoundedText(response.body, `the answer to ${step}`);
  } catch (error) {
    if (error instanceof TextTooLarge)
      throw new NetworkError(error.message, error, 'check the address: it is not a descriptor');
    throw error;
  }
}

/** Reads a JSON body whatever its content type (the old hub sent JSON as text/html). */
export async function json(step: string, response: HttpResponse): Promise<unknown> {
  const text = await boundedText(step, response);
  if (!response.ok) throw new ApiError(step, response.status, errorDetail(text));
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ApiError(
      step,
      response.status,
      `answered something that is not JSON: ${text.slice(0, 80)}`,
    );
  }
}

/** The useful part of an error body: {error}, {message}, {errors: [...]}, or the text. */
export function errorDetail(text: string): string {
  try {
    const body = JSON.parse(text) as { error?: unknown; message?: unknown; errors?: unknown };
    if (typeof body.error === 'string') return body.error;
    if (typeof body.message === 'string') return body.message;
    if (Array.isArray(body.errors)) return body.errors.map(String).join('; ');
  } catch {
    // a plain text body
  }
  return text.trim().slice(0, 300);
}

export function isRetryable(error: unknown): boolean {
  return (
    error instanceof NetworkError ||
    (error instanceof ApiError &&
      ((error.status >= 500 && !PERMANENT.has(error.status)) || error.status === 429))
  );
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
      },
      { once: true },
    );
  });
}

/** Runs an attempt again on network errors and 5xx, with exponential back-off. */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  options: {
    tries?: number;
    baseMs?: number;
    signal?: AbortSignal;
    retryAfterMs?: (error: unknown) => number | undefined;
  } = {},
): Promise<T> {
  const tries = options.tries ?? 4;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      if (n >= tries || !isRetryable(error) || options.signal?.aborted) throw error;
      const wait = options.retryAfterMs?.(error) ?? (options.baseMs ?? 250) * 2 ** (n - 1);
      await sleep(wait, options.signal);
    }
  }
}
