import { proxySettings } from '@data/core';
import { terminalSafeIO, type IO } from './output/io.js';
import { COLORS, NO_COLORS, colorEnabled, type Palette } from '@data/core';
import { clientFetch, type HttpFetch } from '@data/core';
import { silenceLimitMs } from '@data/core';
import { hubAddress, type HubAddress } from './config/settings.js';
import { CredentialStore } from './credentials/store.js';

export interface GlobalOptions {
  json: boolean;
  color: boolean;
  debug: boolean;
  api?: string;
  site?: string;
}

/** Everything a command needs from the outside world, built once per run. */
export interface Context {
  /** Standard streams whose control characters are shown as escapes (see output/io.ts). */
  readonly io: IO;
  /**
   * The streams as they are: for data written byte for byte (data cat to a pipe), and for
   * the spinner and prompts, which draw with escape sequences of their own.
   */
  readonly rawIO: IO;
  readonly signal: AbortSignal;
  readonly fetch: HttpFetch;
  /** For downloads: GET only, and each body chunk is valid only until the next is asked for. */
  readonly download: HttpFetch;
  /** How long a server may stay silent (DATA_HTTP_TIMEOUT). */
  readonly silenceMs: number;
  /** The hub's API and site bases, from flags, environment or settings. */
  readonly hub: () => HubAddress;
  readonly credentials: CredentialStore;
  readonly globals: GlobalOptions;
  /** Colours for stdout. */
  readonly colors: Palette;
  /** Colours for stderr. */
  readonly errColors: Palette;
  /** Run heavy work (validation) in a worker with a bounded heap: true for the real CLI. */
  readonly isolate: boolean;
}

/** A fetch whose module is loaded on the first request, so that start-up does not pay for it. */
function lazy(load: () => Promise<HttpFetch>): HttpFetch {
  let loaded: Promise<HttpFetch> | undefined;
  return async (url, init) => (await (loaded ??= load()))(url, init);
}

export function createContext(
  io: IO,
  signal: AbortSignal,
  globals: GlobalOptions,
  options: { fetch?: HttpFetch | undefined; isolate?: boolean | undefined } = {},
): Context {
  const color = !globals.json && globals.color;
  const silenceMs = silenceLimitMs(io.env);
  // Behind a proxy every request goes through undici's proxy agent, downloads too: the
  // hand-written download client speaks to origins only (bench:transport says why it stays).
  const proxy = proxySettings(io.env);
  const proxied = proxy && lazy(async () => (await import('@data/core')).proxiedFetch(proxy));
  let hub: HubAddress | undefined;
  return {
    io: terminalSafeIO(io, globals.json),
    rawIO: io,
    signal,
    fetch: clientFetch(
      options.fetch ?? proxied ?? lazy(async () => (await import('@data/core')).fetch),
      silenceMs,
    ),
    download: clientFetch(
      options.fetch ?? proxied ?? lazy(async () => (await import('@data/core')).lendingFetch()),
      silenceMs,
    ),
    silenceMs,
    // The settings file is read once, on first use.
    hub: () => (hub ??= hubAddress({ api: globals.api, site: globals.site }, io.env)),
    credentials: new CredentialStore(io.env),
    isolate: options.isolate ?? false,
    globals,
    colors: colorEnabled(io.isStdoutTTY, io.env, color) ? COLORS : NO_COLORS,
    errColors: colorEnabled(io.isStderrTTY, io.env, color) ? COLORS : NO_COLORS,
  };
}
