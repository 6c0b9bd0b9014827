import type { Command } from 'commander';
import { createContext, type Context, type GlobalOptions } from './context.js';
import { DataError, InputError, InterruptedError, InvalidDataError, UsageError } from '@data/core';
import { EXIT, exitCodeOf } from './exit-codes.js';
import { hintOf } from './output/hints.js';
import { usageWords } from './output/usage-words.js';
import { systemIO, type IO } from './output/io.js';
import { asksVersion, nodeTooOld, version } from '@data/core';
import type { HttpFetch } from '@data/core';
import { visible } from '@data/core';

export interface RunOptions {
  signal?: AbortSignal;
  fetch?: HttpFetch;
  isolate?: boolean;
  /** Called with the command's name before it runs. */
  beforeCommand?: (name: string) => void;
}

/** Parses argv, runs one command and returns its exit code; never exits the process. */
export async function run(
  argv: readonly string[],
  io: IO,
  options: RunOptions = {},
): Promise<number> {
  if (asksVersion(argv)) {
    io.stdout.write(`${version()}\n`);
    return EXIT.ok;
  }
  const { Command, CommanderError } = await import('commander');
  const { commandNamed, registerCommands } = await import('./commands/index.js');
  const signal = options.signal ?? new AbortController().signal;
  let exitCode: number = EXIT.ok;
  let context: Context | undefined;
  const program = new Command('data')
    .description('Validate, publish and fetch Frictionless data packages')
    .version(version(), '-V, --version')
    .option('--json', 'print exactly one JSON document on stdout')
    .option('--no-color', 'no colours in the output')
    .option('--debug', 'show stack traces and debug details')
    .option('--api <url>', 'the hub API (or DATA_API; default http://127.0.0.1:8080)')
    .option('--site <url>', 'the hub site for read URLs (or DATA_SITE; default: the API)')
    .exitOverride()
    .configureHelp({ showGlobalOptions: true })
    .showSuggestionAfterError()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
      // A usage error commander finds, said as data's own are (output/usage-words.ts).
      outputError: (text, write) => {
        write(`error: ${usageWords(text)}\nhint: ${USAGE_HINT}\n`);
      },
    });
  const contextFor = (command: Command): Context =>
    (context ??= createContext(io, signal, command.optsWithGlobals<GlobalOptions>(), options));
  await registerCommands(
    program,
    contextFor,
    (code: number) => (exitCode = code),
    commandNamed(argv),
  );
  program.hook('preAction', (_, command) => options.beforeCommand?.(command.name()));
  try {
    await program.parseAsync([...argv], { from: 'user' });
    return exitCode;
  } catch (error) {
    const globals = program.opts<GlobalOptions>();
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok;
      // Commander said it on stderr; --json owes its one document on stdout too.
      if (globals.json || jsonAsked(argv))
        return reportFailure(usageOf(error), io, { ...globals, json: true });
      return EXIT.usage;
    }
    // Its reader went away (`data cat big.csv | head -1`): nothing to say, as SIGPIPE.
    if (signal.aborted && signal.reason === OUTPUT_CLOSED) return EXIT.closedOutput;
    return reportFailure(
      signal.aborted
        ? error instanceof InterruptedError
          ? error
          : new InterruptedError(signal.reason)
        : (closedPrompt(error) ??
            fileSystemFailure(error) ??
            (await unreadableTable(error)) ??
            (await refusal(error, context))),
      io,
      globals,
    );
  }
}

/** A credential the hub refused, said as fits what is kept (commands/auth-common.ts). */
async function refusal(error: unknown, context: Context | undefined): Promise<unknown> {
  if (!context || !(error instanceof DataError) || error.kind !== 'auth') return error;
  const { shownRefusal } = await import('./commands/auth-common.js');
  return shownRefusal(context, error);
}

/** `--json` among the options, where commander stopped before it could read it. */
const jsonAsked = (argv: readonly string[]): boolean => {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
};

/** A usage error commander found (an invalid choice, a missing argument), as a UsageError. */
function usageOf(error: { code: string; message: string }): UsageError {
  const message =
    error.code === 'commander.help' ? 'a command is needed' : usageWords(error.message);
  return new UsageError(message, USAGE_HINT);
}

const USAGE_HINT = 'the usage is in --help';

/**
 * Why a command is stopped when its output closes: no interruption to report. An AbortError,
 * as the reason of an abort is everywhere else, since sockets and streams are destroyed with it.
 */
const OUTPUT_CLOSED = new DOMException('the output closed', 'AbortError');

/** A question closed by Ctrl-C (a byte in the prompt's raw mode, not a signal): exit 130. */
function closedPrompt(error: unknown): DataError | undefined {
  return (error as { name?: unknown } | null)?.name === 'ExitPromptError'
    ? new InterruptedError('SIGINT')
    : undefined;
}

const FILE_REASONS: Record<string, string> = {
  ENOENT: 'no such file or folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EEXIST: 'it already exists',
  ENAMETOOLONG: 'the name is too long',
  ELOOP: 'too many symbolic links',
  // Thrown by openRegularFile (files/chunks.ts) for a named pipe, a socket or a device.
  EFTYPE: 'it is not a regular file',
  EIO: 'the device failed to read it (an input/output error)',
};

/**
 * A file or folder the user named could not be used (a path under /proc, a read-only
 * disk…): the user's to fix, so an error with the path and the reason, not a bug.
 */
function fileSystemFailure(error: unknown): DataError | undefined {
  const { code, path } = error as NodeJS.ErrnoException;
  const reason = code ? FILE_REASONS[code] : undefined;
  if (!reason || typeof path !== 'string') return undefined;
  return new InputError(`cannot use ${path}: ${reason}`, {
    code: 'E_FILE',
    hint: 'check the path, and that you may write there',
    cause: error,
  });
}

/**
 * A table no reader could read (a damaged workbook, one past the readers' limits) where a
 * command reads rows (cat, info): a finding about the data, exit 1, as validate reports it.
 * Its module is loaded only on this path.
 */
async function unreadableTable(error: unknown): Promise<DataError | undefined> {
  const { SourceFailure } = await import('@data/core');
  if (!(error instanceof SourceFailure)) return undefined;
  return new InvalidDataError(error.note, { reason: 'unreadable-table', cause: error });
}

function reportFailure(error: unknown, io: IO, globals: GlobalOptions): number {
  if (error instanceof DataError) {
    const hint = hintOf(error);
    if (globals.json) {
      io.stdout.write(
        `${JSON.stringify({ error: { code: error.code, message: error.message, hint: hint ?? null } })}\n`,
      );
    } else {
      // A message may quote a server or a file: shown with its control characters escaped.
      io.stderr.write(`error: ${visible(error.message)}\n`);
      if (hint) io.stderr.write(`hint: ${visible(hint)}\n`);
    }
    return exitCodeOf(error);
  }
  const detail = error instanceof Error ? error.message : String(error);
  if (globals.json) {
    io.stdout.write(
      `${JSON.stringify({ error: { code: 'E_INTERNAL', message: detail, hint: 'this is a bug in data, please report it' } })}\n`,
    );
  } else {
    io.stderr.write(
      `error: ${visible(detail)}\nThis is a bug in data, please report it (node ${process.version}).\n`,
    );
  }
  if (globals.debug && error instanceof Error && error.stack) io.stderr.write(`${error.stack}\n`);
  return EXIT.bug;
}

/**
 * Spent chunks of a transfer are freed only when the young generation is collected, and V8
 * grows it under a high allocation rate. Keeping it at its initial size frees them promptly.
 * It mattered most when downloads read into fresh buffers (peak RSS of a 1 GB get fell from
 * 190 to 130 MB); with the reused buffers of today it still takes publishing 1 GB from 119 to
 * 111-113 MB, at the same speed (npm run bench:transfer, two runs each way).
 * Not for `data validate`: large inputs are read in a worker with a young generation of its
 * own, and at start-up the small one cost a small package's validation 10 ms of collections
 * (94 against 86 ms, 15 runs each). Nor for `data diff`, whose matching of parts allocates
 * fast in this thread: kept small, it took the 1,000,000-row bench diff from 3.4 to 4.0 s.
 */
function keepYoungGenerationSmall(command: string): void {
  // Loaded only here: each built-in module a small validation loads costs it time.
  if (command !== 'validate' && command !== 'diff')
    process.getBuiltinModule('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
}

/** How long a command may take to wind down after its output closed, before it is cut off. */
const WIND_DOWN_MS = 2000;

/**
 * A reader that went away (`data validate | head -1`) ends the command at once and quietly,
 * as SIGPIPE ends other programs; a closed stderr is ignored. The command is stopped as
 * Ctrl-C stops it and the process ends by itself: process.exit() while V8 compiles in the
 * background can deadlock (the compiler thread waits for a collection the exiting main
 * thread never runs), which hung `data validate --json | head -1` now and then.
 */
function stopQuietlyWhenOutputCloses(controller: AbortController): { closed: boolean } {
  const output = { closed: false };
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    // Writes after the first failure fail too: the output is gone already.
    if (output.closed) return;
    if (error.code !== 'EPIPE') throw error;
    output.closed = true;
    process.exitCode = EXIT.closedOutput;
    controller.abort(OUTPUT_CLOSED);
    setTimeout(() => process.exit(EXIT.closedOutput), WIND_DOWN_MS).unref();
  });
  process.stderr.on('error', () => undefined);
  return output;
}

/**
 * Entry point of bin/data: the only place that sets the process exit code. `onCommand` hears
 * the name of the command about to run.
 */
export async function main(options: { onCommand?: (name: string) => void } = {}): Promise<void> {
  if (nodeTooOld()) {
    process.stderr.write(`error: data needs Node.js 22.19 or newer; this is ${process.version}\n`);
    process.exitCode = EXIT.usage;
    return;
  }
  const controller = new AbortController();
  const output = stopQuietlyWhenOutputCloses(controller);
  // The command stops as it can (cleaning up what it began); a second signal ends it now.
  const interrupt = (signal: NodeJS.Signals): void => {
    if (controller.signal.aborted)
      process.exit(signal === 'SIGTERM' ? EXIT.terminated : EXIT.interrupted);
    controller.abort(signal);
  };
  process.on('SIGINT', interrupt);
  process.on('SIGTERM', interrupt);
  const code = await run(process.argv.slice(2), systemIO(), {
    signal: controller.signal,
    isolate: true,
    beforeCommand: (name) => {
      keepYoungGenerationSmall(name);
      options.onCommand?.(name);
    },
  });
  process.exitCode = output.closed ? EXIT.closedOutput : code;
  process.off('SIGINT', interrupt);
  process.off('SIGTERM', interrupt);
}
