import { existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

/**
 * The hub's tests run twice: on the embedded default (SQLite and a folder) and on
 * PostgreSQL, started for the run. Without PostgreSQL installed the second run is left out,
 * except under CI, where it then fails.
 */
const withPostgres = Boolean(process.env.CI) || existsSync('/usr/lib/postgresql');

export default defineConfig({
  test: {
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
          exclude: ['test/hub/processes.test.ts'],
        },
      },
      ...(withPostgres
        ? [
            {
              extends: true,
              test: {
                name: 'postgres',
                include: ['test/hub/**/*.test.ts'],
                env: { DATA_TEST_DATABASE: 'postgres' },
                globalSetup: ['test/helpers/postgres-setup.ts'],
              },
            },
          ]
        : []),
    ],
  },
});
