import type { Writable } from 'node:stream';

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
