/**
 * What bin/data runs: the CLI bundle (scripts/bundle.ts), compiled from a code cache of its
 * own when it can be.
 *
 * V8 compiles a function when it is first called, and Node's compile cache keeps only what
 * was compiled before the module ran: its top level. Every start compiled again each function
 * a command calls, a fifth of validating a small package. A cache made by the V8 script once
 * a command has run holds those functions too, so each command's cache is written after its
 * first run and read at every later start. The bundle is one script, so no module has to be
 * found, read and linked apart.
 */
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { firstWord } from './commands/first-word.js';
import { makeDirectorySync } from './files/directories.js';

type Env = Readonly<Record<string, string | undefined>>;

interface Cli {
  main(options?: { onCommand?: (name: string) => void }): Promise<void>;
}

const BUNDLE = join(import.meta.dirname, 'bundle', 'cli.cjs');

/** Arguments with no command in them: --version, --help or a mistake. */
const NO_COMMAND = 'none';

/**
 * The key of the cache of what the arguments ask for: the command they seem to name, `none`
 * when they name none, or no key for a word that cannot be a command's name.
 */
export function guessCommand(argv: readonly string[]): string | undefined {
  const word = firstWord(argv);
  if (word === undefined) return NO_COMMAND;
  return /^[a-z]{1,20}$/.test(word) ? word : undefined;
}

/** DATA_CACHE_DIR, else XDG_CACHE_HOME/data, else ~/.cache/data. */
export function cacheDir(env: Env): string {
  if (env.DATA_CACHE_DIR) return env.DATA_CACHE_DIR;
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'data');
}

/**
 * A cache belongs to one bundle (the hash its first line carries: V8 itself checks only the
 * source's length), one Node.js and one command.
 */
export function cacheFile(dir: string, bundleHash: string, command: string): string {
  return join(dir, 'code', `${bundleHash}-${process.version}-${process.arch}-${command}.bin`);
}

function readIfThere(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Written whole or not at all, and the caches of other bundles removed. */
function writeCache(path: string, data: Buffer, bundleHash: string): void {
  const folder = dirname(path);
  makeDirectorySync(folder, 0o700);
  for (const name of readdirSync(folder))
    if (!name.startsWith(`${bundleHash}-`)) rmSync(join(folder, name), { force: true });
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, data, { mode: 0o600 });
  renameSync(partial, path);
}

/** What became of a command's cache, told on stderr under --debug. */
function tell(argv: readonly string[], line: string): void {
  if (argv.includes('--debug')) process.stderr.write(`debug: code cache ${line}\n`);
}

export async function start(argv: readonly string[], env: Env): Promise<void> {
  const source = readFileSync(BUNDLE, 'utf8');
  const bundleHash = /^\/\/ bundle ([0-9a-f]{16})\n/.exec(source)?.[1];
  const command = guessCommand(argv);
  const cached =
    env.NODE_DISABLE_COMPILE_CACHE || !bundleHash || !command
      ? undefined
      : cacheFile(cacheDir(env), bundleHash, command);
  const cachedData = cached ? readIfThere(cached) : undefined;
  const script = new Script(
    `(function (exports, require, module, __filename, __import) {"use strict";${source}\n})`,
    { filename: BUNDLE, ...(cachedData ? { cachedData } : {}) },
  );
  const load = script.runInThisContext() as (
    exports: object,
    require: NodeJS.Require,
    module: { exports: object },
    filename: string,
    dynamicImport: (specifier: string) => Promise<unknown>,
  ) => void;
  const module = { exports: {} };
  // The bundle's dynamic imports of packages come here: a script of its own has no loader.
  load(module.exports, createRequire(BUNDLE), module, BUNDLE, (specifier) => import(specifier));
  let commandRan = false;
  process.once('exit', () => {
    if (!cached || !bundleHash) return;
    if (cachedData && !script.cachedDataRejected) return tell(argv, `${cached}: used`);
    const was = cachedData ? 'rejected' : 'missing';
    if (!commandRan && command !== NO_COMMAND)
      return tell(argv, `${cached}: ${was}, not written: no command ran`);
    try {
      writeCache(cached, script.createCachedData(), bundleHash);
      tell(argv, `${cached}: ${was}, written`);
    } catch (error) {
      // Without a cache the next start compiles as this one did.
      tell(argv, `${cached}: ${was}, not written: ${(error as Error).message}`);
    }
  });
  await (module.exports as Cli).main({ onCommand: () => (commandRan = true) });
}
