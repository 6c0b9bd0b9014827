/**
 * Runs a bundle of dist/bundle (scripts/bundle.ts) as one V8 script, compiled from a code
 * cache of its own when it can be.
 *
 * V8 compiles a function when it is first called, and Node's compile cache keeps only what
 * was compiled before a module ran: its top level. Each start compiled again every function
 * it called, a fifth of validating a small package. A cache that the script makes once the
 * work has run holds those functions too: it is written after a first run and read at every
 * later start. One script also spares Node finding, reading and linking each module apart.
 */
import { closeSync, fstatSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { writeFileAtomicSync } from './files/atomic.js';
import { makeDirectorySync } from './files/directories.js';
import { dataFolder } from './files/home.js';
import { regExpFlagsSet, resetRegExpFlags } from './regexp-flags.js';

type Env = Readonly<Record<string, string | undefined>>;

/** DATA_CACHE_DIR, else XDG_CACHE_HOME/data, else ~/.cache/data; none without a home. */
export const cacheDir = (env: Env): string | undefined =>
  dataFolder(env, 'DATA_CACHE_DIR', 'XDG_CACHE_HOME', '.cache');

/**
 * A cache belongs to one build of one bundle (the hash its first line carries: V8 itself
 * checks only the source's length), one Node.js, and one kind of work in it (a command).
 */
export function cacheFile(dir: string, bundle: string, hash: string, work: string): string {
  return join(dir, 'code', `${bundle}-${hash}-${process.version}-${process.arch}-${work}.bin`);
}

/** What became of a cache: used; or missing or rejected, then written or not. */
export type CacheFate = 'used' | 'missing' | 'rejected';

export interface LoadedBundle {
  readonly exports: Record<string, unknown>;
  /** The cache's file, when there is one for this work. */
  readonly file: string | undefined;
  readonly fate: CacheFate | undefined;
  /** Writes the cache when it was missing or rejected; the reason when it cannot. */
  save(): string | undefined;
}

/**
 * The cache, if it is there and only its owner could have written it: compiled code is run
 * as it is, so a file another user could have put or changed is not read.
 */
function readOwnCache(path: string): Buffer | undefined {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const { uid, mode } = fstatSync(fd);
    if (process.getuid && (uid !== process.getuid() || (mode & 0o022) !== 0)) return undefined;
    return readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Written whole or not at all (files/atomic.ts). The caches of the bundle's other builds are
 * removed, and what writes that did not finish left: the atomic write's temporary files
 * (`.<cache>.<random>.part`), and the `<cache>.<pid>.partial` of the builds before it (a write
 * under way loses its file, and is made next time).
 */
function writeCache(path: string, data: Buffer, builds: string, current: string): void {
  const folder = dirname(path);
  makeDirectorySync(folder, 0o700);
  for (const name of readdirSync(folder)) {
    const temporary = name.startsWith(`.${builds}`) && name.endsWith('.part');
    if (
      temporary ||
      (name.startsWith(builds) && (!name.startsWith(current) || name.endsWith('.partial')))
    )
      rmSync(join(folder, name), { force: true });
  }
  writeFileAtomicSync(path, data, { mode: 0o600 });
}

/**
 * Runs dist/bundle/<bundle>.cjs with the cache of `work` (none when `work` is undefined or
 * NODE_DISABLE_COMPILE_CACHE is set, as for Node's own cache). The script gets CommonJS's
 * parameters, `__import` for its dynamic imports of packages (a script has no module loader
 * of its own) and DATA_SAVE_CODE_CACHE (runtime.ts) to write the cache when its work is done.
 */
export function loadBundle(bundleFile: string, work: string | undefined, env: Env): LoadedBundle {
  const source = readFileSync(bundleFile, 'utf8');
  const hash = /^\/\/ bundle ([0-9a-f]{16})\n/.exec(source)?.[1];
  const bundle = (/([^/\\]+)\.cjs$/.exec(bundleFile)?.[1] ?? 'bundle').replace(/-/g, '_');
  const dir = env.NODE_DISABLE_COMPILE_CACHE ? undefined : cacheDir(env);
  const cached = dir && hash && work ? cacheFile(dir, bundle, hash, work) : undefined;
  const cachedData = cached ? readOwnCache(cached) : undefined;
  const script = new Script(
    '(function (exports, require, module, __filename, __import, DATA_SAVE_CODE_CACHE) {' +
      `"use strict";${source}\n})`,
    { filename: bundleFile, ...(cachedData ? { cachedData } : {}) },
  );
  const fate: CacheFate | undefined = !cached
    ? undefined
    : !cachedData
      ? 'missing'
      : script.cachedDataRejected === true
        ? 'rejected'
        : 'used';
  let saved = false;
  const save = (): string | undefined => {
    if (!cached || fate === 'used' || saved) return undefined;
    // A cache is checked against V8's settings of the moment it is made, and of the next start:
    // made under the RegExp settings a run set (regexp-flags.ts), it would be rejected. They
    // are put back only where nothing may match an expression any more: at the exit of the
    // main thread (see settleCache in the CLI's packages/cli/src/start.ts), whose workers
    // have ended.
    if (regExpFlagsSet()) {
      if (!process.getBuiltinModule('node:worker_threads').isMainThread)
        return "V8's RegExp settings were changed by this run";
      resetRegExpFlags();
    }
    saved = true;
    try {
      writeCache(cached, script.createCachedData(), `${bundle}-`, `${bundle}-${String(hash)}-`);
      return undefined;
    } catch (error) {
      // Without a cache the next start compiles as this one did.
      return (error as Error).message;
    }
  };
  const module = { exports: {} as Record<string, unknown> };
  const run = script.runInThisContext() as (...parameters: unknown[]) => void;
  run(
    module.exports,
    createRequire(bundleFile),
    module,
    bundleFile,
    (specifier: string) => import(specifier),
    () => void save(),
  );
  return { exports: module.exports, file: cached, fate, save };
}
