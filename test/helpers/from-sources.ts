/**
 * The sources run in other threads and processes, with no build:
 * - the global setup of every test project (vitest.config.ts, the default export) bundles
 *   core's validation worker from the sources of the moment into the run's folder, again before
 *   each rerun of watch mode, the one core's
 *   validator/worker-url.ts starts when it runs from the sources (DATA_SOURCE_WORKER). So the
 *   unit tests need no `npm run build`, and never start a build made of other sources. It takes
 *   a fraction of a second; the descriptor profiles are not precompiled in it, and are compiled
 *   when first needed, as they are from the sources;
 * - sourceModule bundles a module of the sources for a test to import in a thread or a process
 *   of its own.
 * Both are written under node_modules (vitest.config.ts), where they find the packages they leave
 * outside, and removed when the run ends.
 */
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { makeDirectorySync } from '../../packages/core/src/files/directories.js';
import { bundleCoreWorker, commonOptions, coreVersion } from '../../scripts/bundle-core.js';

/** The worker's module (worker.js) in the run's folder, as vitest.config.ts names it. */
function workerFile(): string {
  const url = process.env.DATA_SOURCE_WORKER;
  if (url === undefined) throw new Error('vitest.config.ts names no DATA_SOURCE_WORKER');
  return fileURLToPath(url);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The folders of runs killed before their exit could remove them (a run stopped by `timeout`
 * with SIGTERM): those of another run a day old, which no run lasts.
 */
function removeStale(run: string): void {
  const cache = dirname(run);
  for (const name of readdirSync(cache)) {
    const folder = join(cache, name);
    if (!name.startsWith('data-source-worker-') || folder === run) continue;
    if (Date.now() - statSync(folder).mtimeMs > DAY_MS)
      rmSync(folder, { recursive: true, force: true });
  }
}

/**
 * The bundling under way, shared by the projects' setups (each project loads this module
 * anew): they run it once, before the first run and before each rerun of watch mode.
 */
const BUNDLING = Symbol.for('data.tests.bundling');
type Shared = Record<symbol, Promise<unknown> | undefined>;

function bundleOnce(folder: string): Promise<unknown> {
  const shared = globalThis as Shared;
  shared[BUNDLING] ??= bundleCoreWorker(folder).finally(() => {
    shared[BUNDLING] = undefined;
  });
  return shared[BUNDLING];
}

export default async function setup(project: TestProject): Promise<void> {
  const worker = workerFile();
  const folder = dirname(worker);
  // After an edit of core's sources, watch mode's rerun starts a worker made of them.
  project.onTestsRerun(() => bundleOnce(folder).then(() => undefined));
  // Each project's setup runs this: the first one bundles (worker.js is written last).
  if (existsSync(worker)) return;
  removeStale(dirname(folder));
  makeDirectorySync(folder);
  await bundleOnce(folder);
}

let made = 0;

/**
 * The address of `source` (a TypeScript module of core) bundled with what it imports of
 * the sources, into a module of the run's folder beside the worker's folder: a validation it
 * runs starts the run's worker (worker-url.ts finds ../bundle/worker.js).
 */
export async function sourceModule(source: string): Promise<string> {
  const out = join(
    dirname(dirname(workerFile())),
    'modules',
    `${basename(source, '.ts')}-${String(process.pid)}-${String(++made)}.mjs`,
  );
  await build({
    ...commonOptions(coreVersion()),
    entryPoints: [source],
    outfile: out,
    format: 'esm',
    packages: 'external',
  });
  return pathToFileURL(out).href;
}
