import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * Every temporary folder of a run, the tests' own and their processes' (hubs, the CLI,
 * PostgreSQL, Chromium), is made inside one folder that goes when the run ends: a test
 * stopped by its timeout, or a process still writing while its test removes its folder,
 * leaves nothing in the system's temporary folder, which runs would otherwise fill.
 */
/**
 * One folder of each kind per process: vitest loads this file again when it or what it imports
 * changes (watch mode), and a second folder and exit handler would follow each load (the run's
 * folder inside the first, TMPDIR being it by then). A load made the process's folders; the next
 * ones take them.
 */
const FOLDERS = Symbol.for('data.tests.folders');
function processFolder(key: string, make: () => string): string {
  const made = ((globalThis as Record<symbol, Record<string, string> | undefined>)[FOLDERS] ??= {});
  if (made[key] === undefined) {
    const folder = make();
    made[key] = folder;
    process.on('exit', () => rmSync(folder, { recursive: true, force: true }));
  }
  return made[key];
}

const runFolder = processFolder('run', () => {
  const folder = mkdtempSync(join(tmpdir(), 'data-tests-'));
  // The services' own users (PostgreSQL's refuses root) reach their folders inside it.
  chmodSync(folder, 0o755);
  return folder;
});
process.env.TMPDIR = runFolder;

/**
 * The validation worker of the run, bundled from the sources by the global setup
 * (test/helpers/from-sources.ts, told where by the variable) and started by core's
 * worker-url.ts when it runs from the sources (DATA_SOURCE_WORKER): the unit tests need no
 * build, bundled again before each rerun of watch mode. Under node_modules, where the bundle
 * finds the packages it leaves outside; it goes when the run ends.
 */
const workerFolder = processFolder('worker', () => {
  const cache = join(import.meta.dirname, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  return mkdtempSync(join(cache, 'data-source-worker-'));
});
const sourceWorker = pathToFileURL(join(workerFolder, 'bundle', 'worker.js')).href;
process.env.DATA_SOURCE_WORKER = sourceWorker;

/**
 * The tests that take minutes or gigabytes, or install packages: a run of their own (`heavy`),
 * after the others and one file at a time. `npm test` runs every project; `--project default`
 * leaves them out of a developer's quick run.
 */
const HEAVY = [
  // A 1 GB table published, then its copies made in bounded memory.
  'test/e2e/hub-memory.test.ts',
  // npm run package: the single executable built and run.
  'test/e2e/single-executable.test.ts',
  // The table viewer in Chromium on a generated table of a million rows.
  'test/e2e/table-viewer.test.ts',
  // The old datahub-cli 0.6.3, installed from the npm registry.
  'test/e2e/datahub-cli.test.ts',
  // The CLI package packed and installed alone.
  'test/packaging/cli-alone.test.ts',
];

/**
 * The hub's tests run twice: on the embedded default (SQLite and a folder) and on
 * PostgreSQL and OpenStack Swift (S3), both started for the run. Without them installed the
 * second run is left out, except under CI, where it then fails.
 */
const withServices =
  Boolean(process.env.CI) ||
  (existsSync('/usr/lib/postgresql') && existsSync('/usr/bin/swift-proxy-server'));

export default defineConfig({
  // The workspace packages from their TypeScript sources, as tsconfig.json's `source` condition.
  resolve: {
    alias: {
      '@data/core': join(import.meta.dirname, 'packages/core/src/index.ts'),
      '@data/hub': join(import.meta.dirname, 'packages/hub/src/index.ts'),
    },
  },
  define: { DATA_SOURCE_WORKER: JSON.stringify(sourceWorker) },
  test: {
    globalSetup: ['test/helpers/from-sources.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    restoreMocks: true,
    unstubEnvs: true,
    projects: [
      {
        extends: true,
        test: {
          name: 'default',
          include: ['test/**/*.test.ts'],
          // Processes sharing one database: PostgreSQL's alone.
          exclude: ['test/hub/processes.test.ts', ...HEAVY],
        },
      },
      {
        extends: true,
        test: {
          name: 'heavy',
          include: HEAVY,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
      ...(withServices
        ? [
            {
              extends: true,
              test: {
                name: 'postgres-swift',
                include: ['test/hub/**/*.test.ts'],
                env: {
                  DATA_TEST_DATABASE: 'postgres',
                  DATA_TEST_STORAGE: 's3',
                  // Swift's tempauth account, read by the AWS SDK's own credential chain.
                  AWS_ACCESS_KEY_ID: 'test:tester',
                  AWS_SECRET_ACCESS_KEY: 'testing',
                },
                globalSetup: ['test/helpers/postgres-setup.ts', 'test/helpers/swift-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
