import type { IO } from './output/io.js';
import { COLORS, NO_COLORS, colorEnabled, type Palette } from './output/colors.js';
import type { Fetch } from './validator/location.js';

export interface GlobalOptions {
  json: boolean;
  color: boolean;
  debug: boolean;
}

/** Everything a command needs from the outside world, built once per run. */
export interface Context {
  readonly io: IO;
  readonly signal: AbortSignal;
  readonly fetch: Fetch;
  readonly globals: GlobalOptions;
  /** Colours for stdout. */
  readonly colors: Palette;
  /** Colours for stderr. */
  readonly errColors: Palette;
  /** Run heavy work (validation) in a worker with a bounded heap: true for the real CLI. */
  readonly isolate: boolean;
}

const lazyFetch: Fetch = async (url, init) => {
  const transport = await import('./client/transport.js');
  return transport.fetch(url, init);
};

export function createContext(
  io: IO,
  signal: AbortSignal,
  globals: GlobalOptions,
  options: { fetch?: Fetch | undefined; isolate?: boolean | undefined } = {},
): Context {
  const color = !globals.json && globals.color;
  return {
    io,
    signal,
    fetch: options.fetch ?? lazyFetch,
    isolate: options.isolate ?? false,
    globals,
    colors: colorEnabled(io.isStdoutTTY, io.env, color) ? COLORS : NO_COLORS,
    errColors: colorEnabled(io.isStderrTTY, io.env, color) ? COLORS : NO_COLORS,
  };
}
