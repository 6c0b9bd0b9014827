import type { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { terminalSafe } from '@data/core';

export interface IO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  readonly isStdoutTTY: boolean;
  readonly isStderrTTY: boolean;
  /** Whether a person can answer a question: standard input is a terminal. */
  readonly isStdinTTY: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
}

export function systemIO(): IO {
  const forced = process.env.DATA_FORCE_TTY === '1';
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    isStdoutTTY: forced || process.stdout.isTTY,
    isStderrTTY: forced || process.stderr.isTTY,
    // Asked only by a command about to ask a question: opening standard input takes 4 ms.
    get isStdinTTY() {
      return process.stdin.isTTY;
    },
    env: process.env,
    cwd: process.cwd(),
  };
}

export interface MemoryIO extends IO {
  out(): string;
  err(): string;
}

function collector(tty: boolean): { stream: Writable; text: () => string } {
  const { Writable: WritableStream } = process.getBuiltinModule('node:stream');
  const { clearLine, cursorTo, moveCursor } = process.getBuiltinModule('node:readline');
  const chunks: string[] = [];
  const stream = new WritableStream({
    write(chunk: Buffer | string, _encoding, callback) {
      chunks.push(chunk.toString());
      callback();
    },
  });
  // What a spinner needs of a terminal: the cursor moves, written as escape sequences.
  if (tty)
    Object.assign(stream, {
      isTTY: true,
      columns: 120,
      cursorTo: (x: number) => cursorTo(stream, x),
      clearLine: (direction: -1 | 0 | 1) => clearLine(stream, direction),
      moveCursor: (dx: number, dy: number) => moveCursor(stream, dx, dy),
    });
  return { stream, text: () => chunks.join('') };
}

/** In-memory streams for tests, with the TTY flags they ask for. */
export function memoryIO(
  options: { tty?: boolean; env?: Record<string, string>; cwd?: string } = {},
): MemoryIO {
  const out = collector(options.tty ?? false);
  const err = collector(options.tty ?? false);
  return {
    stdout: out.stream,
    stderr: err.stream,
    isStdoutTTY: options.tty ?? false,
    isStderrTTY: options.tty ?? false,
    isStdinTTY: false,
    env: options.env ?? {},
    cwd: options.cwd ?? process.cwd(),
    out: out.text,
    err: err.text,
  };
}

/**
 * A stream that writes what it is given with control characters shown as escapes
 * (terminalSafe): the last net under the renderers, for text from data or a hub that one of
 * them did not make visible. Everything but write and end is the stream's own.
 */
function terminalStream(raw: NodeJS.WritableStream): NodeJS.WritableStream {
  const decoder = new StringDecoder('utf8');
  const safe = (chunk: unknown): unknown =>
    typeof chunk === 'string'
      ? terminalSafe(chunk)
      : chunk instanceof Uint8Array
        ? terminalSafe(decoder.write(chunk))
        : chunk;
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (raw.write as (...args: unknown[]) => boolean)(safe(chunk), ...rest);
  const end = (chunk?: unknown, ...rest: unknown[]): unknown =>
    typeof chunk === 'function' || chunk === undefined
      ? (raw.end as (...args: unknown[]) => unknown)(chunk, ...rest)
      : (raw.end as (...args: unknown[]) => unknown)(safe(chunk), ...rest);
  return new Proxy(raw, {
    get(target, key) {
      if (key === 'write') return write;
      if (key === 'end') return end;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
    },
  });
}

/**
 * The IO commands write through: stderr always, and stdout unless it carries JSON (exact
 * already) or data a command writes byte for byte (which it takes from the raw IO).
 */
export function terminalSafeIO(io: IO, stdoutIsJson: boolean): IO {
  return Object.create(io, {
    stdout: { value: stdoutIsJson ? io.stdout : terminalStream(io.stdout) },
    stderr: { value: terminalStream(io.stderr) },
  }) as IO;
}
