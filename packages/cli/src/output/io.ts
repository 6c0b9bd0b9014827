import type { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { terminalSafe } from '@data/core';

/** Standard input: bytes (it is never set to an encoding). */
export type InputStream = NodeJS.ReadableStream & AsyncIterable<Buffer>;

export interface IO {
  readonly stdout: NodeJS.WritableStream;
  readonly stderr: NodeJS.WritableStream;
  /**
   * Standard input: a token piped to `login --with-token`, the rows of `data cat -`, the
   * answers to a question. Opened on first use (opening it takes 4 ms).
   */
  readonly stdin: InputStream;
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
    get stdin() {
      return process.stdin;
    },
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
  // Never ended, as process.stdout and stderr are not by a stream piped into them (a
  // prompt's output is): later lines still reach it.
  Object.assign(stream, {
    end: (chunk?: unknown) => {
      if (typeof chunk === 'string' || chunk instanceof Uint8Array) stream.write(chunk);
      return stream;
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

export interface MemoryIOOptions {
  /** Whether stdout and stderr are terminals. */
  tty?: boolean;
  env?: Record<string, string>;
  cwd?: string;
  /** What standard input holds (nothing by default: it ends at once), or the stream itself. */
  stdin?: string | Uint8Array | InputStream;
  /** Whether standard input is a terminal, someone there to answer questions. */
  stdinTTY?: boolean;
}

/** Standard input holding `text`, then its end; a terminal's flag when asked for. */
function memoryStdin(text: string | Uint8Array | InputStream, tty: boolean): InputStream {
  const { Readable } = process.getBuiltinModule('node:stream');
  const stream =
    typeof text === 'string' || text instanceof Uint8Array
      ? Readable.from(text.length === 0 ? [] : [Buffer.from(text)], { objectMode: false })
      : text;
  if (tty) Object.assign(stream, { isTTY: true, setRawMode: () => stream });
  return stream;
}

/** In-memory streams for tests, with the TTY flags they ask for. */
export function memoryIO(options: MemoryIOOptions = {}): MemoryIO {
  const out = collector(options.tty ?? false);
  const err = collector(options.tty ?? false);
  let stdin: InputStream | undefined;
  return {
    stdout: out.stream,
    stderr: err.stream,
    get stdin() {
      return (stdin ??= memoryStdin(options.stdin ?? '', options.stdinTTY ?? false));
    },
    isStdoutTTY: options.tty ?? false,
    isStderrTTY: options.tty ?? false,
    isStdinTTY: options.stdinTTY ?? false,
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
