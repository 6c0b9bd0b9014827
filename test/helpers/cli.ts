/**
 * The one way tests run `data`: in this process (`runCli`, the command's code as the
 * sources have it, with in-memory streams and, through `fetch`, msw), or as the real program
 * (`runBin` and `runBinSync`: `node bin/data` on the build, a process of its own).
 */
import {
  spawn,
  spawnSync,
  type ChildProcess,
  type ChildProcessWithoutNullStreams,
} from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpFetch } from '@data/core';
import { run } from '../../packages/cli/src/cli.js';
import { PassThrough } from 'node:stream';
import { memoryIO, type InputStream } from '../../packages/cli/src/output/io.js';

export const ROOT = join(import.meta.dirname, '../..');
export const BIN = join(ROOT, 'bin/data');

/** What a run of `data` left: its exit code, and what it wrote on stdout and stderr. */
export interface CliResult<Code = number> {
  code: Code;
  out: string;
  err: string;
}

export interface CliOptions {
  /**
   * The environment, on top of `DATA_KEYCHAIN=0` (no keychain is asked) and a fresh
   * `DATA_CONFIG_DIR` (no real settings or credentials are read); nothing of this process's.
   */
  env?: Record<string, string>;
  cwd?: string;
  /** What standard input holds, or the stream itself (see `answering`). */
  stdin?: string | Uint8Array | InputStream;
  /** Standard input is a terminal: someone is there to answer questions. */
  stdinTTY?: boolean;
  /** stdout and stderr are terminals. */
  tty?: boolean;
  /** The fetch of every request: `globalThis.fetch` for msw's handlers. */
  fetch?: HttpFetch;
  signal?: AbortSignal;
  /** Called with all of stderr so far each time more is written. */
  onErr?: (err: string) => void;
}

/** A fresh folder for settings and credentials: a run reads nothing of the user's. */
function freshConfigDir(): string {
  return mkdtempSync(join(tmpdir(), 'data-config-'));
}

/** Runs `data <argv>` in this process, as `bin/data` would, with in-memory streams. */
export async function runCli(
  argv: readonly string[],
  options: CliOptions = {},
): Promise<CliResult> {
  const io = memoryIO({
    env: { DATA_KEYCHAIN: '0', DATA_CONFIG_DIR: freshConfigDir(), ...options.env },
    ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    ...(options.stdinTTY === undefined ? {} : { stdinTTY: options.stdinTTY }),
    ...(options.tty === undefined ? {} : { tty: options.tty }),
  });
  const { onErr } = options;
  if (onErr) {
    const write = io.stderr.write.bind(io.stderr) as (...args: unknown[]) => boolean;
    Object.assign(io.stderr, {
      write: (...args: unknown[]) => {
        const written = write(...args);
        onErr(io.err());
        return written;
      },
    });
  }
  const code = await run(argv, io, {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { code, out: io.out(), err: io.err() };
}

/**
 * A terminal where someone answers questions: each answer is typed once its question shows
 * on stderr, in order, as a person would (typed sooner, the prompt would not be listening).
 */
export function answering(
  answers: [question: string, typed: string][],
): Pick<CliOptions, 'stdin' | 'stdinTTY' | 'onErr'> {
  const keyboard = new PassThrough();
  let next = 0;
  return {
    stdin: keyboard,
    stdinTTY: true,
    onErr: (err) => {
      const [question, typed] = answers[next] ?? [];
      if (question === undefined || typed === undefined || !err.includes(question)) return;
      next++;
      setImmediate(() => keyboard.write(typed));
    },
  };
}

export interface BinOptions {
  /** The environment, on top of this process's and `NO_COLOR=1`. */
  env?: Record<string, string>;
  /** The folder it runs in: the repository's by default. */
  cwd?: string;
  /** What standard input holds; it is closed after (at once by default). */
  stdin?: string;
  /** Arguments for node itself, before bin/data (`--import` of a hook). */
  nodeArgs?: string[];
  /** Called with all of stderr so far each time more comes, and the process. */
  onErr?: (err: string, child: ChildProcessWithoutNullStreams) => void;
  /** Called once the process started: to stop it when the test ends early. */
  onSpawn?: (child: ChildProcess) => void;
}

function binEnv(env: Record<string, string> | undefined): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1', ...env };
}

/** Runs the built `data <argv>` as a process of its own; resolves when it has closed. */
export function runBin(
  argv: readonly string[],
  options: BinOptions = {},
): Promise<CliResult<number | null>> {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), BIN, ...argv], {
    cwd: options.cwd ?? ROOT,
    env: binEnv(options.env),
  });
  options.onSpawn?.(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString();
    options.onErr?.(err, child);
  });
  child.stdin.on('error', () => undefined);
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, out, err }));
  });
}

/** How long `runBinSync` waits for the process, unless told, before it kills it. */
const SYNC_TIMEOUT_MS = 60_000;

/** `runBin`, waiting for the process in this thread: for runs with nothing to serve them. */
export function runBinSync(
  argv: readonly string[],
  options: Omit<BinOptions, 'onErr' | 'onSpawn'> & { timeoutMs?: number } = {},
): CliResult<number | null> {
  const child = spawnSync(process.execPath, [...(options.nodeArgs ?? []), BIN, ...argv], {
    cwd: options.cwd ?? ROOT,
    env: binEnv(options.env),
    input: options.stdin ?? '',
    encoding: 'utf8',
    // A run that hangs is killed, and fails the test, rather than holding the worker.
    timeout: options.timeoutMs ?? SYNC_TIMEOUT_MS,
    killSignal: 'SIGKILL',
  });
  if (child.error) throw child.error;
  return { code: child.status, out: child.stdout, err: child.stderr };
}
