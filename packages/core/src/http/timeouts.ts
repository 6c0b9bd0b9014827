import { NetworkError, UsageError } from '../errors.js';
import type { HttpFetch, HttpInit, HttpResponse } from './types.js';

/** A server that went quiet: retried like any other network failure. */
export class SilenceError extends NetworkError {
  constructor(readonly seconds: number) {
    super(`the server sent nothing for ${String(seconds)} s`);
  }
}

/**
 * Fires after `ms` without a sign of life. Signs of life only bump a counter: a download
 * gives one per 64 KB chunk, and re-arming a timer each time cost a tenth of a second per
 * gigabyte. A check every quarter of `ms` notices the silence instead.
 */
function watchdog(ms: number, onSilence: () => void) {
  let beats = 0;
  let seen = 0;
  let quietSince = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const now = performance.now();
    if (beats !== seen) [seen, quietSince] = [beats, now];
    else if (now - quietSince >= ms) {
      clearInterval(timer);
      timer = undefined;
      onSilence();
    }
  };
  return {
    alive() {
      beats++;
      if (timer) return;
      quietSince = performance.now();
      seen = beats;
      timer = setInterval(check, Math.max(1, ms / 4));
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}

interface Watch {
  dog: ReturnType<typeof watchdog>;
  /** What the end of the chunks means: the answer is awaited next, or all is done. */
  then: 'await answer' | 'done';
  silence: AbortSignal;
  caller: AbortSignal | undefined;
}

/** Passes chunks through, each a sign of life; rethrows silence rather than the abort. */
async function* watched<T>(chunks: AsyncIterable<T>, watch: Watch): AsyncGenerator<T> {
  try {
    for await (const chunk of chunks) {
      watch.dog.alive();
      yield chunk;
    }
    if (watch.then === 'await answer') watch.dog.alive();
  } catch (error) {
    throw silenced(error, watch.silence, watch.caller);
  } finally {
    if (watch.then === 'done') watch.dog.stop();
  }
}

function silenced(error: unknown, silence: AbortSignal, caller: AbortSignal | undefined): unknown {
  return silence.aborted && !caller?.aborted ? silence.reason : error;
}

function isStream(body: HttpInit['body']): body is AsyncIterable<Uint8Array> {
  return typeof body === 'object' && Symbol.asyncIterator in body;
}

/**
 * Bounds every quiet spell of a request: while its body is sent (the socket stops taking
 * chunks), while the answer is awaited, and between two chunks of the answer's body. A large
 * upload may thus take as long as it needs, as long as it moves.
 */
export function withSilenceLimit(fetch: HttpFetch, ms: number): HttpFetch {
  return async (url, init = {}) => {
    const silence = new AbortController();
    const dog = watchdog(ms, () => silence.abort(new SilenceError(ms / 1000)));
    const signal = init.signal ? AbortSignal.any([init.signal, silence.signal]) : silence.signal;
    const watch = (then: Watch['then']): Watch => ({
      dog,
      then,
      silence: silence.signal,
      caller: init.signal,
    });
    const body = isStream(init.body) ? watched(init.body, watch('await answer')) : init.body;
    dog.alive();
    let response: HttpResponse;
    try {
      response = await fetch(url, { ...init, signal, ...(body === undefined ? {} : { body }) });
    } catch (error) {
      dog.stop();
      throw silenced(error, silence.signal, init.signal);
    }
    dog.alive();
    return {
      ok: response.ok,
      status: response.status,
      headers: response.headers,
      body: response.body && watched(response.body, watch('done')),
      text: async () => {
        try {
          return await response.text();
        } catch (error) {
          throw silenced(error, silence.signal, init.signal);
        } finally {
          dog.stop();
        }
      },
    };
  };
}

const DEFAULT_SILENCE_SECONDS = 60;

/** DATA_HTTP_TIMEOUT, in seconds: how long a server may stay silent; 60 by default. */
export function silenceLimitMs(env: Record<string, string | undefined>): number {
  const value = env.DATA_HTTP_TIMEOUT;
  if (value === undefined || value === '') return DEFAULT_SILENCE_SECONDS * 1000;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0)
    throw new UsageError(`DATA_HTTP_TIMEOUT must be a number of seconds above 0, not "${value}"`);
  return seconds * 1000;
}
